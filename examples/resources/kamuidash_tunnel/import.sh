# Import an existing remotely managed tunnel by its ID.
terraform import kamuidash_tunnel.edge c1744f8b-faa1-48a4-9e5c-02ac921467fa
