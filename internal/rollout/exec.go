package rollout

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/hashicorp/terraform-exec/tfexec"
)

// terraform prepares the CLI for one environment. terraform-exec refuses TF_VAR_* in an
// explicit environment, so input variables (from the process and the environment's extras)
// go into a private JSON var file for the plan; it holds secrets and is removed by cleanup.
func (r *Rollout) terraform(env, dir string) (tf *tfexec.Terraform, varFile string, cleanup func(), err error) {
	cleanup = func() {}
	tf, err = tfexec.NewTerraform(dir, r.CLI)
	if err != nil {
		return nil, "", cleanup, err
	}
	r.loud(tf)

	environ := map[string]string{}
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok {
			environ[k] = v
		}
	}
	if r.Env != nil {
		extra, err := r.Env(env)
		if err != nil {
			return nil, "", cleanup, err
		}
		for k, v := range extra {
			environ[k] = v
		}
	}
	vars := map[string]string{}
	for k, v := range environ {
		if name, ok := strings.CutPrefix(k, "TF_VAR_"); ok {
			vars[name] = v
			delete(environ, k)
		}
	}
	if err := tf.SetEnv(tfexec.CleanEnv(environ)); err != nil {
		return nil, "", cleanup, err
	}
	if len(vars) == 0 {
		return tf, "", cleanup, nil
	}
	tmp, err := os.MkdirTemp("", "kamuidash-rollout-vars-")
	if err != nil {
		return nil, "", cleanup, err
	}
	cleanup = func() { r.removeSecrets(tmp, "the input variables' values") }
	data, err := json.Marshal(varValues(vars))
	if err != nil {
		cleanup()
		return nil, "", func() {}, err
	}
	varFile = filepath.Join(tmp, "vars.tfvars.json")
	if err := os.WriteFile(varFile, data, 0o600); err != nil {
		cleanup()
		return nil, "", func() {}, err
	}
	return tf, varFile, cleanup, nil
}

// varValues turns TF_VAR_ strings into var-file values. The CLI parses a TF_VAR_ value of a
// list, map or object variable as an expression; the JSON spelling of such a value (the one
// people use in environment variables) is kept as JSON, anything else stays a string, which
// the CLI converts to a number or bool as the variable's type asks.
func varValues(vars map[string]string) map[string]any {
	out := make(map[string]any, len(vars))
	for k, v := range vars {
		trimmed := strings.TrimSpace(v)
		if (strings.HasPrefix(trimmed, "[") || strings.HasPrefix(trimmed, "{")) && json.Valid([]byte(trimmed)) {
			out[k] = json.RawMessage(trimmed)
			continue
		}
		out[k] = v
	}
	return out
}

// loud shows the CLI's human output (init, plan, apply), which masks sensitive values.
func (r *Rollout) loud(tf *tfexec.Terraform) {
	cliOut := r.CLIOutput
	if cliOut == nil {
		cliOut = r.out()
	}
	tf.SetStdout(cliOut)
	tf.SetStderr(cliOut)
}

// quiet hides the CLI's output: `show -json` and `output -json` print sensitive values in
// clear text, which must never reach a log.
func quiet(tf *tfexec.Terraform) {
	tf.SetStdout(io.Discard)
	tf.SetStderr(io.Discard)
}

// ReadEnvFile reads export lines as the local edge writes them (`export NAME='value'` or
// NAME=value; blank lines and # comments skipped).
func ReadEnvFile(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseEnvFile(string(data), path)
}

func parseEnvFile(text, name string) (map[string]string, error) {
	out := map[string]string{}
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		line = strings.TrimPrefix(line, "export ")
		k, v, ok := strings.Cut(line, "=")
		if !ok || k == "" || strings.ContainsAny(k, " \t'\"") {
			return nil, fmt.Errorf("%s:%d: not a NAME=value line", name, i+1)
		}
		value, err := shellUnquote(v)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %s: %w", name, i+1, k, err)
		}
		out[k] = value
	}
	return out, nil
}

// shellUnquote undoes POSIX shell quoting of one word: 'single-quoted' runs, "double-quoted"
// runs (with \" and \\ escapes) and \-escaped characters, concatenated.
func shellUnquote(s string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return "", errors.New("unterminated single quote")
			}
			b.WriteString(s[i+1 : i+1+end])
			i += end + 1
		case '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte(`"\\$`+"`", s[i+1]) >= 0 {
					i++
				}
				b.WriteByte(s[i])
			}
			if i >= len(s) {
				return "", errors.New("unterminated double quote")
			}
		case '\\':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i])
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}
