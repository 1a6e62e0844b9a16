# dev used to call the modules itself; these blocks move an existing state under
# module.platform without destroying or changing anything. Remove them once every copy of
# dev's state has been applied with them.
moved {
  from = module.edge
  to   = module.platform.module.edge
}

moved {
  from = module.ingress
  to   = module.platform.module.ingress
}

moved {
  from = module.shop
  to   = module.platform.module.shop
}

moved {
  from = module.docs
  to   = module.platform.module.docs
}
