// Package routerpolicy owns the NetworkPolicy that closes the router to everything but the
// tunnel connector: what it must contain, how it is applied (server-side apply under our field
// manager, forcing our fields), how the object on the server is read back into the same terms,
// and which other policies in the namespace widen what reaches the router.
//
// The policy is deliberately narrow. It selects the router pods, declares policyTypes
// [Ingress] and nothing else (listing Egress without rules would cut the router off from DNS
// and from the tenants), and has one rule per admitted peer: the connector on the router's
// port and, optionally, a metrics scraper on the admin port. Each peer is one NetworkPolicyPeer
// with both a pod selector and a namespace selector, so a pod must match both; two separate
// peers would admit either.
package routerpolicy

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	networkingv1ac "k8s.io/client-go/applyconfigurations/networking/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// FieldManager is the server-side apply field manager the provider applies as. Fields owned by
// any other manager are someone else's edit.
const FieldManager = "kamuidash"

// Peer is one set of pods admitted to one port of the router pods.
type Peer struct {
	PodLabels       map[string]string
	NamespaceLabels map[string]string
	Port            int32
}

// Policy is the NetworkPolicy this package guarantees.
type Policy struct {
	Namespace, Name string
	// Labels are the object's labels this policy sets (other labels on the object are left alone).
	Labels          map[string]string
	RouterPodLabels map[string]string
	Connector       Peer
	// Metrics, when set, is admitted to its port only.
	Metrics *Peer
}

// Spec is the policy's spec as it should be on the server.
func (p Policy) Spec() networkingv1.NetworkPolicySpec {
	tcp := corev1.ProtocolTCP
	rule := func(peer Peer) networkingv1.NetworkPolicyIngressRule {
		port := intstr.FromInt32(peer.Port)
		return networkingv1.NetworkPolicyIngressRule{
			From: []networkingv1.NetworkPolicyPeer{{
				PodSelector:       &metav1.LabelSelector{MatchLabels: peer.PodLabels},
				NamespaceSelector: &metav1.LabelSelector{MatchLabels: peer.NamespaceLabels},
			}},
			Ports: []networkingv1.NetworkPolicyPort{{Protocol: &tcp, Port: &port}},
		}
	}
	spec := networkingv1.NetworkPolicySpec{
		PodSelector: metav1.LabelSelector{MatchLabels: p.RouterPodLabels},
		PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress},
		Ingress:     []networkingv1.NetworkPolicyIngressRule{rule(p.Connector)},
	}
	if p.Metrics != nil {
		spec.Ingress = append(spec.Ingress, rule(*p.Metrics))
	}
	return spec
}

// applyConfiguration is the server-side apply request: exactly the fields this policy owns.
func (p Policy) applyConfiguration() *networkingv1ac.NetworkPolicyApplyConfiguration {
	tcp := corev1.ProtocolTCP
	rule := func(peer Peer) *networkingv1ac.NetworkPolicyIngressRuleApplyConfiguration {
		return networkingv1ac.NetworkPolicyIngressRule().
			WithFrom(networkingv1ac.NetworkPolicyPeer().
				WithPodSelector(metav1ac.LabelSelector().WithMatchLabels(peer.PodLabels)).
				WithNamespaceSelector(metav1ac.LabelSelector().WithMatchLabels(peer.NamespaceLabels))).
			WithPorts(networkingv1ac.NetworkPolicyPort().WithProtocol(tcp).WithPort(intstr.FromInt32(peer.Port)))
	}
	spec := networkingv1ac.NetworkPolicySpec().
		WithPodSelector(metav1ac.LabelSelector().WithMatchLabels(p.RouterPodLabels)).
		WithPolicyTypes(networkingv1.PolicyTypeIngress).
		WithIngress(rule(p.Connector))
	if p.Metrics != nil {
		spec = spec.WithIngress(rule(*p.Metrics))
	}
	return networkingv1ac.NetworkPolicy(p.Name, p.Namespace).WithLabels(p.Labels).WithSpec(spec)
}

// SpecJSON is a spec as canonical JSON: the form in which the desired and the observed spec
// are compared, and which a plan shows field by field.
func SpecJSON(spec networkingv1.NetworkPolicySpec) string {
	b, err := json.Marshal(spec)
	if err != nil {
		// A NetworkPolicySpec always marshals; this is unreachable.
		panic(err)
	}
	var indented bytes.Buffer
	_ = json.Indent(&indented, b, "", "  ")
	return indented.String()
}

// Observed is a NetworkPolicy as the server holds it, in this package's terms.
type Observed struct {
	// Policy is the object read back as a Policy. Exact says it is the whole spec; otherwise
	// it is the closest reading, and SpecJSON has the rest.
	Policy Policy
	Exact  bool
	// SpecJSON is the object's spec, canonical.
	SpecJSON string
	// ForeignFields maps each spec field that a manager other than FieldManager owns to that
	// manager, when the spec is not the desired one: who changed it behind Terraform's back.
	ForeignFields map[string]string
	UID           string
}

// Observe reads obj against desired, the policy last applied (nil when there is none, as in an
// import). Only desired's labels are read back; without desired, the labels FieldManager owns,
// or every label of an object it never applied.
func Observe(obj *networkingv1.NetworkPolicy, desired *Policy) Observed {
	var labelKeys []string
	if desired != nil {
		labelKeys = slices.Collect(maps.Keys(desired.Labels))
	} else {
		// Labels another tool added (kubectl label, a GitOps controller's tracking label) are
		// not ours to manage: read back on import, the plan would show them removed, which
		// the apply never does.
		labelKeys = ownLabels(obj)
	}
	spec := obj.Spec
	p := Policy{Namespace: obj.Namespace, Name: obj.Name, RouterPodLabels: spec.PodSelector.MatchLabels, Labels: map[string]string{}}
	for k, v := range obj.Labels {
		if labelKeys == nil || slices.Contains(labelKeys, k) {
			p.Labels[k] = v
		}
	}
	peers := make([]Peer, 0, 2)
	for _, rule := range spec.Ingress {
		var peer Peer
		if len(rule.From) > 0 {
			if s := rule.From[0].PodSelector; s != nil {
				peer.PodLabels = s.MatchLabels
			}
			if s := rule.From[0].NamespaceSelector; s != nil {
				peer.NamespaceLabels = s.MatchLabels
			}
		}
		if len(rule.Ports) > 0 && rule.Ports[0].Port != nil {
			peer.Port = rule.Ports[0].Port.IntVal
		}
		peers = append(peers, peer)
	}
	if len(peers) > 0 {
		p.Connector = peers[0]
	}
	if len(peers) > 1 {
		p.Metrics = &peers[1]
	}
	o := Observed{Policy: p, SpecJSON: SpecJSON(spec), ForeignFields: map[string]string{}, UID: string(obj.UID)}
	o.Exact = len(peers) <= 2 && SpecJSON(p.Spec()) == o.SpecJSON
	if desired == nil || SpecJSON(desired.Spec()) != o.SpecJSON {
		// Only a spec that differs from ours has an author to name. Another manager may share
		// a field with the same value (an identical server-side apply): that is agreement.
		o.ForeignFields = foreignSpecFields(obj.ManagedFields)
	}
	return o
}

// ownLabels are the keys of obj's labels that FieldManager owns; nil when FieldManager owns no
// field of obj at all.
func ownLabels(obj *networkingv1.NetworkPolicy) []string {
	for _, e := range obj.ManagedFields {
		if e.Manager != FieldManager || e.Operation != metav1.ManagedFieldsOperationApply || e.FieldsV1 == nil {
			continue
		}
		set := &fieldpath.Set{}
		if err := set.FromJSON(bytes.NewReader(e.FieldsV1.Raw)); err != nil {
			return nil
		}
		keys := []string{}
		for k := range obj.Labels {
			if set.Has(fieldpath.MakePathOrDie("metadata", "labels", k)) {
				keys = append(keys, k)
			}
		}
		return keys
	}
	return nil
}

// foreignSpecFields lists the spec fields owned by managers other than ours, as
// ".spec.podSelector" → "kubectl-edit". Every field of a NetworkPolicy's spec is atomic (a
// label selector, a list of rules), so a leaf here is a whole selector or rule list.
func foreignSpecFields(entries []metav1.ManagedFieldsEntry) map[string]string {
	owners := map[string][]string{}
	for _, e := range entries {
		if e.Manager == FieldManager || e.FieldsV1 == nil {
			continue
		}
		set := &fieldpath.Set{}
		if err := set.FromJSON(bytes.NewReader(e.FieldsV1.Raw)); err != nil {
			owners["(unreadable managedFields)"] = append(owners["(unreadable managedFields)"], e.Manager)
			continue
		}
		set.Leaves().Iterate(func(p fieldpath.Path) {
			s := p.String()
			if strings.HasPrefix(s, ".spec.") {
				if !slices.Contains(owners[s], e.Manager) {
					owners[s] = append(owners[s], e.Manager)
				}
			}
		})
	}
	out := make(map[string]string, len(owners))
	for field, managers := range owners {
		sort.Strings(managers)
		out[field] = strings.Join(managers, ", ")
	}
	return out
}

// Get reads the policy namespace/name against desired (see Observe).
func Get(ctx context.Context, c kubernetes.Interface, namespace, name string, desired *Policy) (Observed, bool, error) {
	obj, err := c.NetworkingV1().NetworkPolicies(namespace).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return Observed{}, false, nil
	}
	if err != nil {
		return Observed{}, false, fmt.Errorf("reading NetworkPolicy %s/%s: %w", namespace, name, err)
	}
	return Observe(obj, desired), true, nil
}

// Apply makes the server's object match p: a forced server-side apply takes every field p sets
// from whoever changed it. The one spec field p leaves unset, egress, would survive an apply if
// another manager added it, so Apply removes it; removed reports that it did.
func Apply(ctx context.Context, c kubernetes.Interface, p Policy) (observed Observed, removed []string, err error) {
	api := c.NetworkingV1().NetworkPolicies(p.Namespace)
	obj, err := api.Apply(ctx, p.applyConfiguration(), metav1.ApplyOptions{FieldManager: FieldManager, Force: true})
	if apierrors.IsNotFound(err) {
		return Observed{}, nil, fmt.Errorf("applying NetworkPolicy %s/%s: the namespace %s does not exist; the policy goes where the router runs, so install the router's namespace first (%w)",
			p.Namespace, p.Name, p.Namespace, err)
	}
	if err != nil {
		return Observed{}, nil, fmt.Errorf("applying NetworkPolicy %s/%s: %w", p.Namespace, p.Name, err)
	}
	if len(obj.Spec.Egress) > 0 {
		// The test operation makes the removal conditional on the object we just read: if it
		// changed in between, the patch fails instead of removing someone's newer edit blindly.
		patch, _ := json.Marshal([]map[string]any{
			{"op": "test", "path": "/metadata/resourceVersion", "value": obj.ResourceVersion},
			{"op": "remove", "path": "/spec/egress"},
		})
		obj, err = api.Patch(ctx, p.Name, k8stypes.JSONPatchType, patch, metav1.PatchOptions{FieldManager: FieldManager})
		if err != nil {
			return Observed{}, nil, fmt.Errorf("removing spec.egress, which another field manager added to NetworkPolicy %s/%s: %w",
				p.Namespace, p.Name, err)
		}
		removed = append(removed, ".spec.egress")
	}
	return Observe(obj, &p), removed, nil
}

// Delete deletes the policy; one already gone is not an error.
func Delete(ctx context.Context, c kubernetes.Interface, namespace, name string) error {
	err := c.NetworkingV1().NetworkPolicies(namespace).Delete(ctx, name, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting NetworkPolicy %s/%s: %w", namespace, name, err)
	}
	return nil
}

// Widening returns, sorted, the names of the other NetworkPolicies in namespace that select
// pods with routerPodLabels and admit ingress to them. NetworkPolicies add up: a pod selected
// by several policies accepts what any of them allows, so each of these widens what reaches the
// router. A policy that selects the router but has no ingress rules (deny-all) or is egress-only
// narrows nothing and widens nothing, and is not reported.
//
// A policy is matched against the labels the router pods actually carry, not only against
// routerPodLabels: the pods have more labels than the selector names (modules/cluster-ingress
// adds app.kubernetes.io/part-of), and a policy selecting by one of those admits its traffic
// to the router just the same.
func Widening(ctx context.Context, c kubernetes.Interface, namespace, self string, routerPodLabels map[string]string) ([]string, error) {
	list, err := c.NetworkingV1().NetworkPolicies(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("listing the NetworkPolicies of namespace %s: %w", namespace, err)
	}
	routers, err := routerLabelSets(ctx, c, namespace, routerPodLabels)
	if err != nil {
		return nil, err
	}
	names := []string{}
	for i := range list.Items {
		np := &list.Items[i]
		if np.Name == self || len(np.Spec.Ingress) == 0 || !appliesToIngress(np.Spec.PolicyTypes) {
			continue
		}
		selector, err := metav1.LabelSelectorAsSelector(&np.Spec.PodSelector)
		if err != nil {
			// The API server validated it; a selector it accepted and we cannot read is
			// reported rather than passed over.
			names = append(names, np.Name)
			continue
		}
		if slices.ContainsFunc(routers, selector.Matches) {
			names = append(names, np.Name)
		}
	}
	sort.Strings(names)
	return names, nil
}

// routerLabelSets are the label sets of the router pods in namespace, and routerPodLabels
// itself, which stands for pods not created yet (the router may be deployed after its policy).
// Credentials that may not list pods get routerPodLabels alone: the report is then narrower,
// but the plan still works as before.
func routerLabelSets(ctx context.Context, c kubernetes.Interface, namespace string, routerPodLabels map[string]string) ([]labels.Labels, error) {
	sets := []labels.Labels{labels.Set(routerPodLabels)}
	pods, err := c.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{LabelSelector: labels.SelectorFromSet(routerPodLabels).String()})
	if apierrors.IsForbidden(err) {
		return sets, nil
	}
	if err != nil {
		return nil, fmt.Errorf("listing the router pods of namespace %s: %w", namespace, err)
	}
	for i := range pods.Items {
		sets = append(sets, labels.Set(pods.Items[i].Labels))
	}
	return sets, nil
}

// appliesToIngress: an empty policyTypes means Ingress (plus Egress when there are egress rules).
func appliesToIngress(types []networkingv1.PolicyType) bool {
	return len(types) == 0 || slices.Contains(types, networkingv1.PolicyTypeIngress)
}
