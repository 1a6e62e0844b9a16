# Import an uploaded Worker by its script name. The next apply re-uploads it from the
# provider's sources, since an import cannot know which sources built the code.
terraform import kamuidash_edge_worker.edge kamuidash-edge-dev
