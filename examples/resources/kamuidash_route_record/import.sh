# Import a record written by other tooling as <routes_namespace_id>/<app>.
terraform import kamuidash_route_record.docs 0f2ac74b498b48028cb68387c421e279/docs
