package guard

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
)

// A classes file adds type→class mappings for resource types the guard does not know, or
// changes the class of one it does. It is JSON:
//
//	{
//	  "classes": {
//	    "my_worker_thing": "worker",
//	    "acme_dns_*":      "dns",
//	    "acme_domain":     ["dns", "kv"]
//	  }
//	}
//
// Keys are exact resource types or prefixes with one trailing "*"; values are one class or a
// list of classes (worker, kv, static, dns, tunnel, cluster, other). The file's mappings are
// consulted before the built-in ones, so any match in the file wins, but for one case: a prefix
// never takes the worker class from a type the built-ins class as a Worker (only its exact
// name does), so that a broad pattern cannot switch the guard off unnoticed. Within the file an
// exact type beats a prefix and the longest prefix wins. JSON rather than HCL keeps the file readable
// by every CI tool (jq) and needs no parser beyond the standard library.
type classesFile struct {
	Classes map[string]classList `json:"classes"`
}

// classList is one class name or a list of them.
type classList []string

func (l *classList) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*l = classList{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return errors.New(`a class must be a string ("kv") or a list of strings (["dns", "kv"])`)
	}
	*l = many
	return nil
}

// LoadClasses reads a classes file (the format is described at classesFile).
func LoadClasses(path string) (*Table, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the classes file: %w", err)
	}
	t, err := ParseClasses(b)
	if err != nil {
		return nil, fmt.Errorf("classes file %s: %w", path, err)
	}
	return t, nil
}

// ParseClasses reads the contents of a classes file. Unknown keys and unknown classes are
// errors, so that a typo cannot silently leave a type unguarded.
func ParseClasses(b []byte) (*Table, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var f classesFile
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf(`%w; expected {"classes": {"<resource type or prefix*>": "<class>", …}}`, err)
	}
	if dec.More() {
		return nil, errors.New("more than one JSON value; a classes file is one object")
	}
	if f.Classes == nil {
		return nil, errors.New(`no "classes" object; expected {"classes": {"<resource type or prefix*>": "<class>", …}}`)
	}
	patterns := make([]string, 0, len(f.Classes))
	for p := range f.Classes {
		patterns = append(patterns, p)
	}
	sort.Strings(patterns) // report the same first error on every run
	t := &Table{}
	for _, p := range patterns {
		classes := make([]Class, len(f.Classes[p]))
		for i, name := range f.Classes[p] {
			classes[i] = Class(name)
		}
		if err := t.Set(p, classes...); err != nil {
			return nil, err
		}
	}
	return t, nil
}
