package guard

import (
	"fmt"
	"strings"
)

// Table maps resource types to classes. A pattern is either an exact type name or a prefix
// written with one trailing "*" ("cloudflare_r2_*"). Within a table an exact name beats any
// prefix and a longer prefix beats a shorter one, so a specific family can be carved out of a
// broad one ("cloudflare_workers_kv*" is kv inside "cloudflare_worker*", which is worker).
//
// The zero value is an empty table, ready to use.
type Table struct {
	exact  map[string][]Class
	prefix map[string][]Class
}

// Set maps pattern to classes (at least one), replacing an earlier mapping of the same pattern.
func (t *Table) Set(pattern string, classes ...Class) error {
	if len(classes) == 0 {
		return fmt.Errorf("pattern %q: no class given", pattern)
	}
	for _, c := range classes {
		if _, err := ParseClass(string(c)); err != nil {
			return fmt.Errorf("pattern %q: %w", pattern, err)
		}
	}
	name, isPrefix := strings.CutSuffix(pattern, "*")
	if name == "" || strings.ContainsAny(name, "* \t\n") {
		return fmt.Errorf("pattern %q: write an exact resource type (my_thing) or a prefix with one trailing * (my_*)", pattern)
	}
	classes = sortClasses(classes)
	if isPrefix {
		if t.prefix == nil {
			t.prefix = map[string][]Class{}
		}
		t.prefix[name] = classes
	} else {
		if t.exact == nil {
			t.exact = map[string][]Class{}
		}
		t.exact[name] = classes
	}
	return nil
}

// Lookup returns the classes of resourceType and whether any pattern matched.
func (t *Table) Lookup(resourceType string) ([]Class, bool) {
	cs, _, ok := t.lookup(resourceType)
	return cs, ok
}

// lookup is Lookup, and whether the pattern that matched is the exact type.
func (t *Table) lookup(resourceType string) (classes []Class, exact, ok bool) {
	if t == nil {
		return nil, false, false
	}
	if cs, ok := t.exact[resourceType]; ok {
		return cs, true, true
	}
	best, found := "", false
	for p := range t.prefix {
		if strings.HasPrefix(resourceType, p) && (!found || len(p) > len(best)) {
			best, found = p, true
		}
	}
	if !found {
		return nil, false, false
	}
	return t.prefix[best], false, true
}

// mustSet is Set for the built-in table, whose patterns are constants.
func (t *Table) mustSet(pattern string, classes ...Class) {
	if err := t.Set(pattern, classes...); err != nil {
		panic(err)
	}
}
