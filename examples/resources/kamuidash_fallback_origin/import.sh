# Import the zone's fallback origin by the zone's ID (a zone has one).
terraform import kamuidash_fallback_origin.this 023e105f4ecef8ad9ca31a8372d0c353
