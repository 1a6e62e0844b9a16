terraform {
  required_version = ">= 1.8"

  required_providers {
    kamuidash = {
      source = "kamuidash/kamuidash"
    }
  }
}
