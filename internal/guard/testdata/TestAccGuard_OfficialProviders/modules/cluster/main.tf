variable "policy" {
  type = string
}

resource "kubernetes_network_policy_v1" "router" {
  content = var.policy
}
