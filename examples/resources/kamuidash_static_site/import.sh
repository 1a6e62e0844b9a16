# Import a site already in the bucket as <bucket>/<name>; it must hold exactly one version.
terraform import kamuidash_static_site.docs kamuidash-dev-static/docs
