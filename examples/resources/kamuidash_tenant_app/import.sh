# Import an app's existing route record as <routes_namespace_id>/<name>.
terraform import kamuidash_tenant_app.shop 0f2ac74b498b48028cb68387c421e279/shop
