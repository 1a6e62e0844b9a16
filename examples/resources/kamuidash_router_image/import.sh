# Import an image pushed earlier by its reference by digest (the image_ref). The next plan
# pushes the provider's own build if its digest differs.
terraform import kamuidash_router_image.router registry.example.com/platform/kamuidash-router@sha256:3f1c0e8e2b7a4d6f9c5b8a1e0d2f4c6b8a0e2d4f6c8b0a2e4d6f8c0b2a4e6d8f
