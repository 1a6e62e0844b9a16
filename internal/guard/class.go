package guard

import (
	"fmt"
	"sort"
	"strings"
)

// Class is what part of the edge a resource change touches. The rules care mostly about
// ClassWorker against everything else; the other classes make the report readable and let a
// reviewer see at a glance what kind of change a refused plan mixes.
type Class string

// The classes, in the order reports list them.
const (
	ClassWorker  Class = "worker"
	ClassKV      Class = "kv"
	ClassStatic  Class = "static"
	ClassDNS     Class = "dns"
	ClassTunnel  Class = "tunnel"
	ClassCluster Class = "cluster"
	// ClassOther is every type the guard does not know. It counts as "another class" next to
	// a Worker change: an unknown resource might be anything, so the guard does not assume it
	// is harmless. Map it in a classes file if it is.
	ClassOther Class = "other"
)

// AllClasses lists every class in report order.
var AllClasses = []Class{ClassWorker, ClassKV, ClassStatic, ClassDNS, ClassTunnel, ClassCluster, ClassOther}

// rank orders classes as AllClasses does.
func (c Class) rank() int {
	for i, k := range AllClasses {
		if k == c {
			return i
		}
	}
	return len(AllClasses)
}

// ParseClass accepts a class name as written in a classes file.
func ParseClass(s string) (Class, error) {
	for _, c := range AllClasses {
		if string(c) == s {
			return c, nil
		}
	}
	names := make([]string, len(AllClasses))
	for i, c := range AllClasses {
		names[i] = string(c)
	}
	return "", fmt.Errorf("unknown class %q (the classes are %s)", s, strings.Join(names, ", "))
}

// sortClasses puts classes in report order and drops duplicates.
func sortClasses(cs []Class) []Class {
	out := append([]Class(nil), cs...)
	sort.Slice(out, func(i, j int) bool { return out[i].rank() < out[j].rank() })
	n := 0
	for i, c := range out {
		if i == 0 || c != out[n-1] {
			out[n] = c
			n++
		}
	}
	return out[:n]
}
