# Import an existing namespace by its ID.
terraform import kamuidash_kv_namespace.routes 0f2ac74b498b48028cb68387c421e279
