# This configuration used to declare its resources directly; these blocks move an existing
# state into the modules without destroying anything.
moved {
  from = kamuidash_kv_namespace.routes
  to   = module.edge.kamuidash_kv_namespace.routes
}

moved {
  from = kamuidash_kv_namespace.domains
  to   = module.edge.kamuidash_kv_namespace.domains
}

moved {
  from = kamuidash_edge_worker.edge
  to   = module.edge.kamuidash_edge_worker.this
}

moved {
  from = kamuidash_tunnel.edge
  to   = module.ingress.kamuidash_tunnel.this
}

moved {
  from = kamuidash_tenant_app.shop
  to   = module.shop.kamuidash_tenant_app.this[0]
}

moved {
  from = kamuidash_custom_domain.www
  to   = module.shop.kamuidash_custom_domain.this["www.shop.example"]
}

moved {
  from = kamuidash_static_site.docs
  to   = module.docs.kamuidash_static_site.this[0]
}

moved {
  from = kamuidash_route_record.docs
  to   = module.docs.kamuidash_route_record.static[0]
}
