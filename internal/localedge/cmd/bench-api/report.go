package main

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"

	cf "github.com/cloudflare/cloudflare-go/v7"
	"github.com/cloudflare/cloudflare-go/v7/custom_hostnames"
	"github.com/cloudflare/cloudflare-go/v7/kv"
	"github.com/cloudflare/cloudflare-go/v7/option"
	"github.com/hashicorp/terraform-exec/tfexec"
)

// pageSizes are the listing page sizes the API gives, for the refresh's floor: what a
// listing answers when asked for its largest page, and by default.
type pageSizes struct {
	kvKeys                      int // KV key listing (limit 1,000, the API's maximum)
	hostnames, hostnamesDefault int // custom hostname listing: per_page asked 1,000, and none asked
	objects, objectsDefault     int // R2 object listing: per_page asked 1,000, and none asked
	routesKeys, domainsKeys     int // the keys listed
}

// probePageSizes asks the local edge for one page of each listing the refresh could use.
func probePageSizes(ctx context.Context, tf *tfexec.Terraform, e *localEdge) (*pageSizes, error) {
	outputs, err := tf.Output(ctx)
	if err != nil {
		return nil, err
	}
	str := func(name string) string {
		var s string
		_ = json.Unmarshal(outputs[name].Value, &s)
		return s
	}
	opts := []option.RequestOption{option.WithBaseURL(e.apiBase() + "/"), option.WithAPIToken(e.env["CLOUDFLARE_API_TOKEN"]), option.WithMaxRetries(2)}
	acct, zone := e.env["KAMUIDASH_ACCOUNT_ID"], e.env["KAMUIDASH_ZONE_ID"]
	kvs := kv.NewKVService(opts...)
	keys := func(ns string) (pageSize, listed int, err error) {
		page, err := kvs.Namespaces.Keys.List(ctx, ns, kv.NamespaceKeyListParams{AccountID: cf.F(acct), Limit: cf.F(1000.0)})
		if err != nil {
			return 0, 0, err
		}
		listed = len(page.Result)
		if page.ResultInfo.Cursor == "" {
			return 1000, listed, nil // the whole namespace fit in the page asked for
		}
		return listed, listed, nil
	}
	p := &pageSizes{}
	if p.kvKeys, p.routesKeys, err = keys(str("routes_namespace_id")); err != nil {
		return nil, err
	}
	if _, p.domainsKeys, err = keys(str("domains_namespace_id")); err != nil {
		return nil, err
	}
	hostnames := custom_hostnames.NewCustomHostnameService(opts...)
	for _, h := range []struct {
		perPage float64
		into    *int
	}{{1000, &p.hostnames}, {0, &p.hostnamesDefault}} {
		params := custom_hostnames.CustomHostnameListParams{ZoneID: cf.F(zone)}
		if h.perPage > 0 {
			params.PerPage = cf.F(h.perPage)
		}
		page, err := hostnames.List(ctx, params)
		if err != nil {
			return nil, err
		}
		*h.into = int(page.ResultInfo.PerPage)
	}
	// cloudflare-go has no R2 object listing; the page size is all this needs of the answer.
	for _, o := range []struct {
		query string
		into  *int
	}{{"?per_page=1000", &p.objects}, {"", &p.objectsDefault}} {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, e.apiBase()+"/accounts/"+acct+"/r2/buckets/"+str("static_bucket")+"/objects"+o.query, nil)
		if err != nil {
			return nil, err
		}
		req.Header.Set("Authorization", "Bearer "+e.env["CLOUDFLARE_API_TOKEN"])
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil, err
		}
		var env struct {
			ResultInfo struct {
				PerPage int `json:"per_page"`
			} `json:"result_info"`
		}
		err = json.NewDecoder(resp.Body).Decode(&env)
		_ = resp.Body.Close()
		if err != nil {
			return nil, err
		}
		*o.into = env.ResultInfo.PerPage
	}
	return p, nil
}

// find returns the result of the run with that mode and parallelism, or nil.
func (b *bench) find(mode string, parallelism int) *runResult {
	for _, r := range b.runs {
		if r != nil && r.spec.mode == mode && r.spec.parallelism == parallelism {
			return r
		}
	}
	return nil
}

func (b *bench) phaseOf(mode string, parallelism int, phase string) *phaseResult {
	if r := b.find(mode, parallelism); r != nil {
		return r.phases[phase]
	}
	return nil
}

func (b *bench) label(phase string) string {
	switch phase {
	case phaseChange:
		return fmt.Sprintf("change of %d apps (apply)", b.changed)
	case phaseApply:
		return "first apply"
	}
	return phase
}

// column is one column pair of a phase's table: a phase result of the economy and of the
// anchor at one parallelism.
type column struct {
	title             string
	economy, perEntry *phaseResult
}

func (b *bench) printReport() {
	fmt.Println()
	for _, phase := range phases {
		cols := []column{{title: fmt.Sprintf("-parallelism=%d", b.parallelism),
			economy: b.phaseOf(modeEconomy, b.parallelism, phase), perEntry: b.phaseOf(modeAnchor, b.parallelism, phase)}}
		if phase == phaseApply && b.lowParallelism > 0 && b.lowParallelism != b.parallelism {
			cols = append(cols, column{title: fmt.Sprintf("-parallelism=%d", b.lowParallelism),
				economy: b.phaseOf(modeEconomy, b.lowParallelism, phase), perEntry: b.phaseOf(modeAnchor, b.lowParallelism, phase)})
		}
		if cols[0].economy == nil {
			continue
		}
		fmt.Printf("== %s\n", b.label(phase))
		if cols[0].economy.na != "" {
			fmt.Printf("   %s\n\n", cols[0].economy.na)
			continue
		}
		b.printPhaseTable(cols)
		fmt.Println()
	}
	b.printGoals()
}

func (b *bench) printPhaseTable(cols []column) {
	ops := map[string]bool{}
	for _, c := range cols {
		for _, p := range []*phaseResult{c.economy, c.perEntry} {
			if p != nil {
				for _, o := range p.calls.Operations {
					ops[o.Operation] = true
				}
			}
		}
	}
	type row struct {
		name  string
		value func(p *phaseResult) (text string, n float64)
	}
	count := func(f func(p *phaseResult) int) func(p *phaseResult) (string, float64) {
		return func(p *phaseResult) (string, float64) { n := f(p); return strconv.Itoa(n), float64(n) }
	}
	var rows []row
	for _, op := range slices.Sorted(maps.Keys(ops)) {
		rows = append(rows, row{name: op, value: count(func(p *phaseResult) int {
			for _, o := range p.calls.Operations {
				if o.Operation == op {
					return o.Calls
				}
			}
			return 0
		})})
	}
	rows = append(rows,
		row{name: "REST calls", value: count(func(p *phaseResult) int { return p.calls.REST.Calls })},
		row{name: "object-storage calls", value: count(func(p *phaseResult) int { return p.calls.ObjectStorage.Calls })},
		row{name: "S3 calls (R2's S3 API, outside the REST budget)", value: count(func(p *phaseResult) int { return p.calls.S3.Calls })},
		row{name: "KV write calls (single and bulk)", value: count(func(p *phaseResult) int { return p.kvWriteCalls() })},
		row{name: "  of them route records (routes namespace)", value: count(func(p *phaseResult) int { return p.routeWriteCalls() })},
		row{name: "  of them the name filters' (both namespaces)", value: count(func(p *phaseResult) int {
			return p.filterWriteCallsIn(p.routesNS) + p.filterWriteCallsIn(p.domainsNS)
		})},
		row{name: "429 answers", value: count(func(p *phaseResult) int { return p.rateLimited() })},
		row{name: fmt.Sprintf("wall time, measured (scale %d×)", b.scale), value: func(p *phaseResult) (string, float64) {
			return roundDuration(p.wall), p.wall.Seconds()
		}},
		row{name: "wall time at Cloudflare's pace", value: func(p *phaseResult) (string, float64) {
			d := p.atCloudflarePace()
			return roundDuration(d), d.Seconds()
		}},
	)
	width := len("operation")
	for _, r := range rows {
		width = max(width, len(r.name))
	}
	fmt.Printf("   %-*s", width, "")
	for _, c := range cols {
		fmt.Printf(" | %-34s", c.title)
	}
	fmt.Printf("\n   %-*s", width, "operation")
	for range cols {
		fmt.Printf(" | %10s %12s %10s", "economy", "per-resource", "ratio")
	}
	fmt.Println()
	for _, r := range rows {
		if r.name == "REST calls" {
			fmt.Printf("   %s\n", strings.Repeat("-", width+len(cols)*37))
		}
		fmt.Printf("   %-*s", width, r.name)
		for _, c := range cols {
			e, en := cell(c.economy, r.value)
			a, an := cell(c.perEntry, r.value)
			fmt.Printf(" | %10s %12s %10s", e, a, ratio(en, an, c.economy != nil && c.perEntry != nil))
		}
		fmt.Println()
	}
	for _, c := range cols {
		for _, p := range []*phaseResult{c.economy, c.perEntry} {
			if p != nil && p.note != "" {
				fmt.Printf("   %s: %s\n", c.title, p.note)
			}
		}
	}
}

func cell(p *phaseResult, value func(*phaseResult) (string, float64)) (string, float64) {
	if p == nil {
		return "-", 0
	}
	return value(p)
}

func ratio(economy, perResource float64, both bool) string {
	switch {
	case !both:
		return "-"
	case perResource == 0 && economy == 0:
		return "="
	case perResource == 0:
		return "n/a"
	}
	return fmt.Sprintf("%.3f", economy/perResource)
}

// issueSizes are the sizes issue 13's goals are set for.
var issueSizes = sizes{Apps: 1000, Domains: 1000, Sites: 20, Files: 30}

func (b *bench) printGoals() {
	apply := b.phaseOf(modeEconomy, b.parallelism, phaseApply)
	plan := b.phaseOf(modeEconomy, b.parallelism, phasePlan)
	if apply == nil {
		return
	}
	sz, p := b.sizes, b.parallelism
	fmt.Println("== goals of issues 13 and 14 (economy, -parallelism=" + strconv.Itoa(p) + ")")
	if b.sizes != issueSizes {
		fmt.Println("   (the goals are set for -apps 1000 -domains 1000 -sites 20 -files 30; the formulas below follow these sizes)")
	}
	verdict := func(ok bool) string { return map[bool]string{true: "met", false: "NOT met"}[ok] }
	if plan != nil {
		fmt.Printf("   refresh ≤ 60 REST calls: %d, %s (and %d object-storage calls: with them %d, as the issue counts them while they go through the REST API)\n",
			plan.calls.REST.Calls, verdict(plan.calls.REST.Calls <= 60), plan.calls.ObjectStorage.Calls, plan.budgetCalls())
		if r := b.find(modeEconomy, p); r != nil && r.pages != nil {
			pg := r.pages
			listings := ceilDiv(pg.routesKeys, pg.kvKeys) + ceilDiv(pg.domainsKeys, pg.kvKeys) + ceilDiv(sz.Domains, pg.hostnames)
			fmt.Printf("     floor with the page sizes the API gave: ⌈%d route keys ÷ %d⌉ + ⌈%d mapping keys ÷ %d⌉ + ⌈%d hostnames ÷ %d⌉ = %d REST calls,\n"+
				"     plus the fixed resources' reads (%d in this plan), and %d sites × ⌈%d objects ÷ %d⌉ = %d object-storage listings\n"+
				"     (pages when no size is asked: KV %d keys, %d hostnames, %d objects)\n",
				pg.routesKeys, pg.kvKeys, pg.domainsKeys, pg.kvKeys, sz.Domains, pg.hostnames, listings,
				plan.calls.REST.Calls-tenantCalls(plan), sz.Sites, sz.Files, pg.objects, sz.Sites*ceilDiv(sz.Files, pg.objects),
				pg.kvKeys, pg.hostnamesDefault, pg.objectsDefault)
		}
	}
	records, mappings := sz.Apps+sz.Sites, sz.Domains
	pars := []int{p}
	if b.lowParallelism > 0 && b.lowParallelism != p {
		pars = append(pars, b.lowParallelism)
	}
	for _, par := range pars {
		ph := b.phaseOf(modeEconomy, par, phaseApply)
		if ph == nil {
			continue
		}
		goal := ceilDiv(records, par) + 2
		fmt.Printf("   creating the %d route records at -parallelism=%d ≤ ⌈%d ÷ %d⌉ + 2 = %d KV write calls: %d, %s\n",
			records, par, records, par, goal, ph.routeWriteCalls(), verdict(ph.routeWriteCalls() <= goal))
		fmt.Printf("     and the %d domain mappings, written as their hostnames validate: %d KV write calls (⌈%d ÷ %d⌉ = %d)\n",
			mappings, ph.kvWriteCallsIn(ph.domainsNS)-ph.filterWriteCallsIn(ph.domainsNS), mappings, par, ceilDiv(mappings, par))
		fmt.Printf("     and the name filters' rebuilds, one per batch (two writes each): %d KV write calls to the routes namespace's, %d to the mappings'; %d KV write calls in all\n",
			ph.filterWriteCallsIn(ph.routesNS), ph.filterWriteCallsIn(ph.domainsNS), ph.kvWriteCalls())
	}
	if b.sizes == issueSizes {
		fmt.Printf("   first apply ≤ 1,400 REST calls: %d, %s\n", apply.calls.REST.Calls, verdict(apply.calls.REST.Calls <= 1400))
	} else {
		fmt.Printf("   first apply REST calls: %d (the goal, 1,400, is for the issue's sizes)\n", apply.calls.REST.Calls)
	}
	if b.sizes.Sites > 0 {
		fmt.Printf("   the first upload of the sites spends no REST call on objects (S3 path): %d object-storage calls through REST, %d through S3, %s\n",
			apply.calls.ObjectStorage.Calls, apply.calls.S3.Calls, verdict(apply.calls.ObjectStorage.Calls == 0))
	}
	if edit := b.phaseOf(modeEconomy, p, phaseEdit); edit != nil && edit.na == "" {
		fmt.Printf("   a one-file site edit ≤ 4 calls (issue 14: object, manifest, record, purge): %d (%d REST + %d object-storage + %d S3), %s\n",
			edit.allCalls(), edit.calls.REST.Calls, edit.calls.ObjectStorage.Calls, edit.calls.S3.Calls, verdict(edit.allCalls() <= 4))
	}
	total := 0
	for _, r := range b.runs {
		if r == nil {
			continue
		}
		for _, ph := range r.phases {
			total += ph.rateLimited()
		}
	}
	fmt.Printf("   no 429 with the local edge enforcing %s: %d answered 429 in all runs, %s\n", b.edgeLimit, total, verdict(total == 0))
	fmt.Println()
}

// tenantCalls are a phase's REST calls for the tenants' records, mappings and hostnames (KV
// keys and values, custom hostnames); the rest are the fixed resources'.
func tenantCalls(p *phaseResult) int {
	n := 0
	for _, o := range p.calls.Operations {
		_, route, _ := strings.Cut(o.Operation, " ")
		if !o.ObjectStorage && (strings.Contains(route, "/storage/kv/namespaces/{namespace_id}/") || strings.Contains(route, "/custom_hostnames")) {
			n += o.Calls
		}
	}
	return n
}

func ceilDiv(n, d int) int {
	if d <= 0 {
		return 0
	}
	return (n + d - 1) / d
}

func (b *bench) printLastLine() {
	value := func(p *phaseResult, f func(*phaseResult) int) string {
		if p == nil || p.na != "" {
			return "n/a"
		}
		return strconv.Itoa(f(p))
	}
	rest := func(p *phaseResult) int { return p.calls.REST.Calls }
	apply := b.phaseOf(modeEconomy, b.parallelism, phaseApply)
	fmt.Printf("bench-api: refresh_calls=%s create_kv_calls=%s static_edit_calls=%s first_apply_calls=%s refresh_calls_per_resource_mode=%s\n",
		value(b.phaseOf(modeEconomy, b.parallelism, phasePlan), rest),
		value(apply, (*phaseResult).routeWriteCalls),
		value(b.phaseOf(modeEconomy, b.parallelism, phaseEdit), (*phaseResult).allCalls),
		value(apply, rest),
		value(b.phaseOf(modeAnchor, b.parallelism, phasePlan), rest))
}
