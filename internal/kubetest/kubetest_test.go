package kubetest_test

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	networkingv1ac "k8s.io/client-go/applyconfigurations/networking/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/kubetest"
)

const fieldManager = "kamuidash"

// TestRealAPIServer proves the server is a real one: it stores and validates a NetworkPolicy,
// merges a server-side apply into it and records the applier in managedFields, and deletes it.
func TestRealAPIServer(t *testing.T) {
	start := time.Now()
	cfg := kubetest.Start(t)
	t.Logf("etcd and kube-apiserver started in %s", time.Since(start).Round(time.Millisecond))

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}

	v, err := cs.Discovery().ServerVersion()
	if err != nil {
		t.Fatalf("server version: %v", err)
	}
	t.Logf("server version %s (%s/%s)", v.GitVersion, v.Major, v.Minor)

	const ns, name = "kamuidash-system", "router"
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create namespace: %v", err)
	}

	// The server validates: a policy type it does not know is refused.
	bad := &networkingv1.NetworkPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "bad"},
		Spec:       networkingv1.NetworkPolicySpec{PolicyTypes: []networkingv1.PolicyType{"Sideways"}},
	}
	if _, err := cs.NetworkingV1().NetworkPolicies(ns).Create(ctx, bad, metav1.CreateOptions{}); !apierrors.IsInvalid(err) {
		t.Fatalf("create with policy type Sideways: got %v, want an Invalid error", err)
	}

	routerPods := map[string]string{"app.kubernetes.io/name": "kamuidash-router"}
	policy := &networkingv1.NetworkPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: networkingv1.NetworkPolicySpec{
			PodSelector: metav1.LabelSelector{MatchLabels: routerPods},
			PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress},
		},
	}
	if _, err := cs.NetworkingV1().NetworkPolicies(ns).Create(ctx, policy, metav1.CreateOptions{FieldManager: "kubetest-create"}); err != nil {
		t.Fatalf("create network policy: %v", err)
	}

	// Server-side apply: admit the tunnel connector on the router's port, forcing ownership.
	connector := map[string]string{"app.kubernetes.io/name": "cloudflared"}
	apply := networkingv1ac.NetworkPolicy(name, ns).WithSpec(networkingv1ac.NetworkPolicySpec().
		WithPodSelector(metav1ac.LabelSelector().WithMatchLabels(routerPods)).
		WithPolicyTypes(networkingv1.PolicyTypeIngress).
		WithIngress(networkingv1ac.NetworkPolicyIngressRule().
			WithFrom(networkingv1ac.NetworkPolicyPeer().
				WithPodSelector(metav1ac.LabelSelector().WithMatchLabels(connector)).
				WithNamespaceSelector(metav1ac.LabelSelector().WithMatchLabels(map[string]string{"kubernetes.io/metadata.name": ns}))).
			WithPorts(networkingv1ac.NetworkPolicyPort().
				WithProtocol(corev1.ProtocolTCP).
				WithPort(intstr.FromInt32(8080)))))
	applied, err := cs.NetworkingV1().NetworkPolicies(ns).Apply(ctx, apply, metav1.ApplyOptions{FieldManager: fieldManager, Force: true})
	if err != nil {
		t.Fatalf("server-side apply: %v", err)
	}
	if applied.Generation != 2 {
		t.Errorf("generation after the apply = %d, want 2 (the create, then the apply's change)", applied.Generation)
	}

	got, err := cs.NetworkingV1().NetworkPolicies(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("read back: %v", err)
	}
	if len(got.Spec.Ingress) != 1 || len(got.Spec.Ingress[0].Ports) != 1 || got.Spec.Ingress[0].Ports[0].Port.IntValue() != 8080 {
		t.Fatalf("read back ingress = %+v, want one rule on port 8080", got.Spec.Ingress)
	}
	if from := got.Spec.Ingress[0].From; len(from) != 1 || from[0].PodSelector == nil || from[0].NamespaceSelector == nil {
		t.Fatalf("read back peers = %+v, want one peer with both selectors", from)
	}
	var managers []string
	for _, mf := range got.ManagedFields {
		managers = append(managers, string(mf.Operation)+" by "+mf.Manager)
	}
	if !slices.Contains(managers, string(metav1.ManagedFieldsOperationApply)+" by "+fieldManager) {
		t.Fatalf("managedFields = %v, want an Apply by %q", managers, fieldManager)
	}
	t.Logf("managedFields: %v", managers)

	// A second apply that drops the rule takes it away: the manager owns what it applied.
	apply.Spec.Ingress = nil
	again, err := cs.NetworkingV1().NetworkPolicies(ns).Apply(ctx, apply, metav1.ApplyOptions{FieldManager: fieldManager, Force: true})
	if err != nil {
		t.Fatalf("second server-side apply: %v", err)
	}
	if len(again.Spec.Ingress) != 0 {
		t.Errorf("ingress after an apply without it = %+v, want none", again.Spec.Ingress)
	}

	if err := cs.NetworkingV1().NetworkPolicies(ns).Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete: %v", err)
	}
	if _, err := cs.NetworkingV1().NetworkPolicies(ns).Get(ctx, name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("get after delete: got %v, want NotFound", err)
	}
}

// TestStartFailsWithoutBinaries: without the binaries Start fails the test (it never skips) and
// says what to run.
func TestStartFailsWithoutBinaries(t *testing.T) {
	for name, dir := range map[string]string{"unset": "", "empty directory": t.TempDir()} {
		t.Run(name, func(t *testing.T) {
			t.Setenv(kubetest.AssetsEnv, dir)
			ft := &fatalTB{TB: t}
			done := make(chan struct{})
			go func() {
				defer close(done)
				kubetest.Start(ft)
			}()
			<-done
			if !strings.Contains(ft.fatal, "scripts/install-tools.sh kube") {
				t.Errorf("Start's failure = %q, want it to name scripts/install-tools.sh kube", ft.fatal)
			}
			if ft.skipped {
				t.Error("Start skipped")
			}
		})
	}
}

// fatalTB records Fatalf instead of failing the real test; Start reaches nothing else of it
// before it fails.
type fatalTB struct {
	testing.TB
	fatal   string
	skipped bool
}

func (f *fatalTB) Helper() {}

func (f *fatalTB) Fatalf(format string, args ...any) {
	f.fatal = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func (f *fatalTB) Skip(...any)          { f.skipped = true; runtime.Goexit() }
func (f *fatalTB) Skipf(string, ...any) { f.skipped = true; runtime.Goexit() }
func (f *fatalTB) SkipNow()             { f.skipped = true; runtime.Goexit() }
