# Import an existing remotely managed tunnel by its ID, or by its name.
terraform import kamuidash_tunnel.edge c1744f8b-faa1-48a4-9e5c-02ac921467fa
terraform import kamuidash_tunnel.edge kamuidash-dev
