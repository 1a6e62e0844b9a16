# Only the built-in terraform_data resource: the CLI needs no provider to plan it, so the test
# can run the CLI itself and feed the guard the CLI's own bytes.
resource "terraform_data" "note" {
  input = "v1"
}
