package bundle

import (
	"os"
	"path/filepath"
)

// Platform is a GOOS/GOARCH pair.
type Platform struct {
	OS   string
	Arch string
}

func (p Platform) String() string { return p.OS + "/" + p.Arch }

// pinnedEnv is the go command's whole configuration for a bundle build: nothing comes from
// the caller's environment or go env file, so a GOFLAGS or GOEXPERIMENT set on the user's
// machine cannot change the bytes, and nothing is fetched from anywhere.
var pinnedEnv = []string{
	"CGO_ENABLED=0",
	"GO111MODULE=on",
	"GOAMD64=v1", // baseline instruction sets: the output must not depend on the host
	"GOARM64=v8.0",
	"GOENV=off",
	"GOEXPERIMENT=",
	"GOFLAGS=",
	"GONOSUMDB=*",
	"GOPROXY=off",
	"GOSUMDB=off",
	"GOTOOLCHAIN=local", // the toolchain found is the one that builds: no silent download
	"GOWASM=",
	"GOWORK=off",
}

// hostEnvPassThrough are the variables the go command needs to run at all on some host
// (temporary and home directories, Windows' system root). None of them reaches the output.
var hostEnvPassThrough = []string{"HOME", "USERPROFILE", "SYSTEMROOT", "TMPDIR", "TEMP", "TMP", "LOCALAPPDATA", "APPDATA"}

// buildEnv returns the complete environment of a go command building for p (an empty
// Platform leaves GOOS and GOARCH at the toolchain's host default).
func buildEnv(p Platform, goCache, cacheDir string) []string {
	env := append([]string(nil), pinnedEnv...)
	if p.OS != "" {
		env = append(env, "GOOS="+p.OS, "GOARCH="+p.Arch)
	}
	gopath := filepath.Join(cacheDir, "gopath")
	env = append(env,
		"GOCACHE="+goCache,
		"GOPATH="+gopath,
		"GOMODCACHE="+filepath.Join(gopath, "pkg", "mod"),
	)
	for _, name := range hostEnvPassThrough {
		if v, ok := os.LookupEnv(name); ok {
			env = append(env, name+"="+v)
		}
	}
	return env
}
