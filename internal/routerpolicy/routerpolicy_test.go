package routerpolicy_test

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/mattfenwick/cyclonus/pkg/matcher"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/kubetest"
	"github.com/kamuidash/terraform-provider-kamuidash/internal/routerpolicy"
)

const (
	routerNS     = "kamuidash-system"
	monitoringNS = "monitoring"
	otherNS      = "tenant-shop"
)

var (
	routerLabels    = map[string]string{"app.kubernetes.io/name": "kamuidash-router", "app.kubernetes.io/component": "router"}
	connectorLabels = map[string]string{"app.kubernetes.io/name": "cloudflared"}
	scraperLabels   = map[string]string{"app.kubernetes.io/name": "prometheus"}
)

func nsLabels(ns string) map[string]string {
	return map[string]string{"kubernetes.io/metadata.name": ns}
}

func testPolicy() routerpolicy.Policy {
	return routerpolicy.Policy{
		Namespace:       routerNS,
		Name:            "kamuidash-router-from-tunnel",
		Labels:          map[string]string{"app.kubernetes.io/part-of": "kamuidash"},
		RouterPodLabels: routerLabels,
		Connector:       routerpolicy.Peer{PodLabels: connectorLabels, NamespaceLabels: nsLabels(routerNS), Port: 8080},
		Metrics:         &routerpolicy.Peer{PodLabels: scraperLabels, NamespaceLabels: nsLabels(monitoringNS), Port: 9090},
	}
}

// cluster starts a real API server with the namespaces the tests use.
func cluster(t *testing.T) kubernetes.Interface {
	t.Helper()
	c, err := kubernetes.NewForConfig(kubetest.Start(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, ns := range []string{routerNS, monitoringNS, otherNS} {
		_, err := c.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// engine evaluates every NetworkPolicy of the router's namespace as the API server holds it.
func engine(t *testing.T, c kubernetes.Interface) *matcher.Policy {
	t.Helper()
	list, err := c.NetworkingV1().NetworkPolicies(routerNS).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var policies []*networkingv1.NetworkPolicy
	for i := range list.Items {
		policies = append(policies, &list.Items[i])
	}
	return matcher.BuildNetworkPolicies(true, policies)
}

type pod struct {
	namespace string
	labels    map[string]string
}

func (p pod) peer() *matcher.TrafficPeer {
	return &matcher.TrafficPeer{IP: "10.0.0.1", Internal: &matcher.InternalPeer{
		Namespace: p.namespace, NamespaceLabels: nsLabels(p.namespace), PodLabels: p.labels,
	}}
}

var (
	router    = pod{routerNS, routerLabels}
	connector = pod{routerNS, connectorLabels}
)

func allowed(engine *matcher.Policy, from, to *matcher.TrafficPeer, port int) bool {
	return engine.IsTrafficAllowed(&matcher.Traffic{
		Source: from, Destination: to, ResolvedPort: port, Protocol: corev1.ProtocolTCP,
	}).IsAllowed()
}

// The applied object, read back from the API server, admits the connector to the router's
// port and nothing else; the scraper to the admin port only; egress stays open.
func TestApply_AdmitsOnlyTheConnector(t *testing.T) {
	c := cluster(t)
	ctx := context.Background()
	p := testPolicy()
	observed, removed, err := routerpolicy.Apply(ctx, c, p)
	if err != nil {
		t.Fatal(err)
	}
	if !observed.Exact || len(removed) != 0 || len(observed.ForeignFields) != 0 {
		t.Fatalf("fresh apply: exact=%v removed=%v foreign=%v", observed.Exact, removed, observed.ForeignFields)
	}
	got, found, err := routerpolicy.Get(ctx, c, routerNS, p.Name, &p)
	if err != nil || !found {
		t.Fatalf("read back: found=%v err=%v", found, err)
	}
	if got.SpecJSON != routerpolicy.SpecJSON(testPolicy().Spec()) {
		t.Errorf("spec on the server differs from the one applied:\n%s", got.SpecJSON)
	}

	e := engine(t, c)
	for _, tc := range []struct {
		name   string
		from   *matcher.TrafficPeer
		to     *matcher.TrafficPeer
		port   int
		expect bool
	}{
		{"connector → router port", connector.peer(), router.peer(), 8080, true},
		{"connector → admin port", connector.peer(), router.peer(), 9090, false},
		{"connector → another port", connector.peer(), router.peer(), 22, false},
		{"other pod of the namespace → router port", pod{routerNS, map[string]string{"app": "debug"}}.peer(), router.peer(), 8080, false},
		{"unlabelled pod → router port", pod{routerNS, nil}.peer(), router.peer(), 8080, false},
		// Only one of the two selectors matches: connector labels, wrong namespace.
		{"connector labels in a tenant namespace → router port", pod{otherNS, connectorLabels}.peer(), router.peer(), 8080, false},
		// Only the namespace matches (covered above by the unlabelled pod) and the tenant pod.
		{"tenant pod → router port", pod{otherNS, map[string]string{"app": "web"}}.peer(), router.peer(), 8080, false},
		{"outside the cluster → router port", &matcher.TrafficPeer{IP: "203.0.113.7"}, router.peer(), 8080, false},
		{"scraper → admin port", pod{monitoringNS, scraperLabels}.peer(), router.peer(), 9090, true},
		{"scraper → router port", pod{monitoringNS, scraperLabels}.peer(), router.peer(), 8080, false},
		{"scraper labels in the router namespace → admin port", pod{routerNS, scraperLabels}.peer(), router.peer(), 9090, false},
		// Egress is untouched: the router still reaches DNS and the tenants.
		{"router → tenant", router.peer(), pod{otherNS, map[string]string{"app": "web"}}.peer(), 8080, true},
		{"router → DNS", router.peer(), pod{"kube-system", map[string]string{"k8s-app": "kube-dns"}}.peer(), 53, true},
		// Other pods of the namespace are not selected, so they stay open.
		{"anyone → another pod of the namespace", pod{otherNS, nil}.peer(), pod{routerNS, map[string]string{"app": "debug"}}.peer(), 80, true},
	} {
		if got := allowed(e, tc.from, tc.to, tc.port); got != tc.expect {
			t.Errorf("%s: allowed=%v, want %v", tc.name, got, tc.expect)
		}
	}
}

// Policies add up: another policy that selects the router pods and admits ingress is reported,
// and the engine shows that it does widen what reaches the router. Deny-all and egress-only
// policies, and policies selecting other pods, are not reported.
func TestWidening_ReportsPoliciesThatAdmitMore(t *testing.T) {
	c := cluster(t)
	ctx := context.Background()
	p := testPolicy()
	if _, _, err := routerpolicy.Apply(ctx, c, p); err != nil {
		t.Fatal(err)
	}
	none, err := routerpolicy.Widening(ctx, c, routerNS, p.Name, routerLabels)
	if err != nil || len(none) != 0 {
		t.Fatalf("only our policy: widening=%v err=%v", none, err)
	}

	create := func(name string, spec networkingv1.NetworkPolicySpec) {
		t.Helper()
		np := &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: routerNS}, Spec: spec}
		if _, err := c.NetworkingV1().NetworkPolicies(routerNS).Create(ctx, np, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	ingress := []networkingv1.PolicyType{networkingv1.PolicyTypeIngress}
	create("allow-all-in-namespace", networkingv1.NetworkPolicySpec{ // empty selector: every pod
		PolicyTypes: ingress, Ingress: []networkingv1.NetworkPolicyIngressRule{{}},
	})
	create("router-debug", networkingv1.NetworkPolicySpec{
		PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{"app.kubernetes.io/component": "router"}},
		Ingress:     []networkingv1.NetworkPolicyIngressRule{{}}, // no policyTypes: Ingress implied
	})
	create("deny-all", networkingv1.NetworkPolicySpec{PolicyTypes: ingress})
	create("egress-only", networkingv1.NetworkPolicySpec{
		PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeEgress},
		Egress:      []networkingv1.NetworkPolicyEgressRule{{}},
	})
	create("other-pods", networkingv1.NetworkPolicySpec{
		PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{"app": "debug"}},
		PolicyTypes: ingress, Ingress: []networkingv1.NetworkPolicyIngressRule{{}},
	})

	got, err := routerpolicy.Widening(ctx, c, routerNS, p.Name, routerLabels)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"allow-all-in-namespace", "router-debug"}; !slices.Equal(got, want) {
		t.Errorf("widening policies %v, want %v", got, want)
	}
	if !allowed(engine(t, c), pod{otherNS, nil}.peer(), router.peer(), 8080) {
		t.Errorf("the engine says the reported policies do not widen the router's ingress; the report would be wrong")
	}
}

// Someone edits the policy with another field manager: the read shows which fields and who,
// and Apply puts every field back, including removing an egress rule list it never sets.
func TestApply_RepairsDriftAndNamesTheManager(t *testing.T) {
	c := cluster(t)
	ctx := context.Background()
	p := testPolicy()
	if _, _, err := routerpolicy.Apply(ctx, c, p); err != nil {
		t.Fatal(err)
	}

	api := c.NetworkingV1().NetworkPolicies(routerNS)
	obj, err := api.Get(ctx, p.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	obj.Spec.PodSelector.MatchLabels = map[string]string{"app.kubernetes.io/name": "something-else"}
	obj.Spec.Ingress[0].From[0].NamespaceSelector = nil // a pod selector alone: the policy's own namespace
	obj.Spec.PolicyTypes = append(obj.Spec.PolicyTypes, networkingv1.PolicyTypeEgress)
	obj.Spec.Egress = []networkingv1.NetworkPolicyEgressRule{{}}
	if _, err := api.Update(ctx, obj, metav1.UpdateOptions{FieldManager: "kubectl-edit"}); err != nil {
		t.Fatal(err)
	}

	drifted, found, err := routerpolicy.Get(ctx, c, routerNS, p.Name, &p)
	if err != nil || !found {
		t.Fatalf("found=%v err=%v", found, err)
	}
	if drifted.Exact {
		t.Errorf("the edited policy reads as exact")
	}
	for _, field := range []string{".spec.podSelector", ".spec.ingress", ".spec.policyTypes", ".spec.egress"} {
		if drifted.ForeignFields[field] != "kubectl-edit" {
			t.Errorf("foreign fields %v: want %s owned by kubectl-edit", drifted.ForeignFields, field)
		}
	}
	if drifted.Policy.RouterPodLabels["app.kubernetes.io/name"] != "something-else" {
		t.Errorf("read back router labels %v", drifted.Policy.RouterPodLabels)
	}

	repaired, removed, err := routerpolicy.Apply(ctx, c, p)
	if err != nil {
		t.Fatal(err)
	}
	if !repaired.Exact || len(repaired.ForeignFields) != 0 {
		t.Errorf("after repair: exact=%v foreign=%v\n%s", repaired.Exact, repaired.ForeignFields, repaired.SpecJSON)
	}
	if !slices.Equal(removed, []string{".spec.egress"}) {
		t.Errorf("removed %v, want [.spec.egress]", removed)
	}
	if !allowed(engine(t, c), connector.peer(), router.peer(), 8080) || allowed(engine(t, c), pod{otherNS, connectorLabels}.peer(), router.peer(), 8080) {
		t.Errorf("after repair the engine does not see the guaranteed policy")
	}
}

// A policy for a namespace that does not exist fails with what to do, and creates nothing.
func TestApply_MissingNamespace(t *testing.T) {
	c := cluster(t)
	p := testPolicy()
	p.Namespace = "not-installed"
	_, _, err := routerpolicy.Apply(context.Background(), c, p)
	if err == nil || !strings.Contains(err.Error(), "the namespace not-installed does not exist") {
		t.Fatalf("err = %v, want the missing namespace named", err)
	}
}

func TestDelete_IsIdempotent(t *testing.T) {
	c := cluster(t)
	ctx := context.Background()
	p := testPolicy()
	if _, _, err := routerpolicy.Apply(ctx, c, p); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if err := routerpolicy.Delete(ctx, c, routerNS, p.Name); err != nil {
			t.Fatalf("delete %d: %v", i+1, err)
		}
	}
	if _, found, err := routerpolicy.Get(ctx, c, routerNS, p.Name, &p); found || err != nil {
		t.Errorf("after delete: found=%v err=%v", found, err)
	}
}

// Observe reads an object that is not one of ours as closely as it can and says it is not exact.
func TestObserve_NotExact(t *testing.T) {
	for name, mutate := range map[string]func(*networkingv1.NetworkPolicySpec){
		"match expressions": func(s *networkingv1.NetworkPolicySpec) {
			s.PodSelector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "x", Operator: metav1.LabelSelectorOpExists}}
		},
		"a third rule": func(s *networkingv1.NetworkPolicySpec) {
			s.Ingress = append(s.Ingress, networkingv1.NetworkPolicyIngressRule{})
		},
		"two peers in one": func(s *networkingv1.NetworkPolicySpec) {
			s.Ingress[0].From = append(s.Ingress[0].From, s.Ingress[0].From[0])
		},
		"egress type": func(s *networkingv1.NetworkPolicySpec) {
			s.PolicyTypes = append(s.PolicyTypes, networkingv1.PolicyTypeEgress)
		},
		"an ip block": func(s *networkingv1.NetworkPolicySpec) {
			s.Ingress[0].From[0].IPBlock = &networkingv1.IPBlock{CIDR: "0.0.0.0/0"}
		},
		"no rules": func(s *networkingv1.NetworkPolicySpec) { s.Ingress = nil },
	} {
		t.Run(name, func(t *testing.T) {
			p := testPolicy()
			spec := p.Spec()
			mutate(&spec)
			obj := &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: p.Namespace}, Spec: spec}
			if o := routerpolicy.Observe(obj, &p); o.Exact {
				t.Errorf("%s: read as exact", name)
			}
		})
	}
	p := testPolicy()
	obj := &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: p.Namespace, Labels: p.Labels}, Spec: p.Spec()}
	o := routerpolicy.Observe(obj, nil)
	if !o.Exact || !reflect.DeepEqual(o.Policy, p) {
		t.Errorf("our own policy reads back as %+v (exact=%v), want %+v", o.Policy, o.Exact, p)
	}
}

// The router pods carry more labels than the selector names (modules/cluster-ingress adds
// app.kubernetes.io/part-of and managed-by). A policy that selects them by one of those admits
// its traffic to the router just the same, and must be reported.
func TestWidening_SeesTheRouterPodsOwnLabels(t *testing.T) {
	c := cluster(t)
	ctx := context.Background()
	p := testPolicy()
	if _, _, err := routerpolicy.Apply(ctx, c, p); err != nil {
		t.Fatal(err)
	}
	podLabels := map[string]string{"app.kubernetes.io/part-of": "kamuidash", "app.kubernetes.io/managed-by": "terraform"}
	for k, v := range routerLabels {
		podLabels[k] = v
	}
	// No node runs it; the API server stores it, which is all Widening may look at. The
	// namespace has no default service account without a controller manager, so none is used.
	routerPod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "kamuidash-router-0", Namespace: routerNS, Labels: podLabels},
		Spec: corev1.PodSpec{
			ServiceAccountName:           "router",
			AutomountServiceAccountToken: new(bool),
			Containers:                   []corev1.Container{{Name: "router", Image: "router"}},
		},
	}
	if _, err := c.CoreV1().ServiceAccounts(routerNS).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "router"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CoreV1().Pods(routerNS).Create(ctx, routerPod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	allKamuidash := &networkingv1.NetworkPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "allow-all-to-kamuidash", Namespace: routerNS},
		Spec: networkingv1.NetworkPolicySpec{
			PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{"app.kubernetes.io/part-of": "kamuidash"}},
			PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress},
			Ingress:     []networkingv1.NetworkPolicyIngressRule{{}},
		},
	}
	if _, err := c.NetworkingV1().NetworkPolicies(routerNS).Create(ctx, allKamuidash, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if !allowed(engine(t, c), pod{otherNS, nil}.peer(), pod{routerNS, podLabels}.peer(), 8080) {
		t.Fatal("the engine says the policy does not widen the router pod's ingress; the test is wrong")
	}
	got, err := routerpolicy.Widening(ctx, c, routerNS, p.Name, routerLabels)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"allow-all-to-kamuidash"}; !slices.Equal(got, want) {
		t.Errorf("widening policies %v, want %v: a policy admitting everyone to the running router pods went unreported", got, want)
	}
}
