package localedge

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"sync"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/localedge/cfapi"
	edgeruntime "github.com/kamuidash/terraform-provider-kamuidash/internal/localedge/runtime"
	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

// The local edge keeps a signing secret of its own, so that its env file can hand the provider
// the probe key (route.ProbeKey of the secret) before any Worker is uploaded: the provider signs
// propagation probes with the key, and the Worker accepts them only when its SIGNING_SECRET is
// that secret. The env file exports the secret too (envLocalSigningSecret), for the Worker's
// signing_secret; a platform keeps its own in a secret store instead.
const envLocalSigningSecret = "KAMUIDASH_LOCAL_SIGNING_SECRET"

// loadSigningSecret returns the secret stored at path, creating it (48 random bytes, base64url)
// on the first start of a state dir. It survives restarts, so an applied Worker keeps matching.
func loadSigningSecret(path string) (string, error) {
	b, err := os.ReadFile(path)
	switch {
	case err == nil && len(b) >= route.MinSigningSecretBytes:
		return string(b), nil
	case err == nil:
		return "", fmt.Errorf("%s holds no usable signing secret (under %d bytes): delete it and a new one is made", path, route.MinSigningSecretBytes)
	case !errors.Is(err, fs.ErrNotExist):
		return "", err
	}
	raw := make([]byte, 48)
	rand.Read(raw)
	secret := base64.RawURLEncoding.EncodeToString(raw)
	if err := writeFileAtomic(path, []byte(secret)); err != nil {
		return "", err
	}
	return secret, nil
}

// signingSecretWatch warns, once per change, when the loaded Worker signs with another secret
// than the local edge's own: the probes the provider signs with the env file's probe key would
// then be refused (answered as ordinary requests), and verify_propagation would wait in vain.
type signingSecretWatch struct {
	own string
	log *slog.Logger

	mu   sync.Mutex
	seen string
}

func (w *signingSecretWatch) scriptsLoaded(scripts []*cfapi.Script) {
	for _, sc := range scripts {
		secret, ok := edgeruntime.SigningSecret(sc)
		if !ok {
			continue
		}
		w.mu.Lock()
		changed := secret != w.seen
		w.seen = secret
		w.mu.Unlock()
		if changed && secret != w.own {
			w.log.Warn("the Worker "+sc.Name+" signs with another SIGNING_SECRET than this local edge's own, "+
				"so probes signed with KAMUIDASH_PROBE_KEY from its env file are refused: give the Worker $"+
				envLocalSigningSecret+" as its signing secret, or set KAMUIDASH_PROBE_KEY to the key of the one it has",
				"worker", sc.Name)
		}
		return
	}
}
