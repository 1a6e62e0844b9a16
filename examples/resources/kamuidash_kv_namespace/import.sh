# Import an existing namespace by its ID, or by its title.
terraform import kamuidash_kv_namespace.routes 0f2ac74b498b48028cb68387c421e279
terraform import kamuidash_kv_namespace.routes kamuidash-dev-routes
