# Import an existing custom domain by its hostname; the provider finds the custom hostname by
# exact match and the DOMAINS namespace that maps it.
terraform import kamuidash_custom_domain.www www.shop.example

# Or name the DOMAINS namespace explicitly: <domains_namespace_id>/<hostname>.
terraform import kamuidash_custom_domain.www 0f2ac74b498b48028cb68387c421e279/www.shop.example
