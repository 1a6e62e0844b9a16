// Package procgroup starts the local edge's child processes (the Node host of workerd, the
// router) in process groups of their own and stops them, on the systems that have process
// groups. A child in its own group does not get the terminal's Ctrl-C: the local edge gets it
// first and stops its children in order. Windows has no process groups and no SIGTERM, and the
// local edge is not built to run there (Supported); the provider itself is, so this package
// compiles everywhere.
package procgroup
