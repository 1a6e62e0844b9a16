package localedge

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/localedge/cfapi"
)

// hostMatcher reports whether a rule expression matches a request's (lower-case) host.
type hostMatcher func(host string) bool

// ruleCacheSetting is a set_cache_settings rule's "cache" action parameter, if it has one.
func ruleCacheSetting(rule cfapi.RulesetRule) (cache, ok bool) {
	var params struct {
		Cache *bool `json:"cache"`
	}
	if json.Unmarshal(rule.ActionParameters, &params) != nil || params.Cache == nil {
		return false, false
	}
	return *params.Cache, true
}

// parseHostExpression understands the subset of Cloudflare's Rules language that Cache Rules
// on the origin hostname are written in (what kamuidash_tunnel writes, and what a person
// writes by hand for the same purpose):
//
//	expr := term { ("or" | "||") term }
//	term := "(" expr ")"
//	      | "http.host" ("eq" | "==") STRING
//	      | "http.host" "in" "{" STRING { STRING } "}"
//
// Strings are double-quoted with backslash escapes. Anything else (other fields, "and",
// "not", functions) is an error, and the zone cache treats the rule as never matching (it
// logs the expression once): the cache then behaves as if the rule were absent, so a test
// that relies on such a rule fails instead of passing by accident.
func parseHostExpression(expr string) (hostMatcher, error) {
	toks, err := tokenizeExpression(expr)
	if err != nil {
		return nil, err
	}
	p := &exprParser{toks: toks}
	m, err := p.expr()
	if err != nil {
		return nil, err
	}
	if p.pos != len(p.toks) {
		return nil, fmt.Errorf("unexpected %q after the expression", p.toks[p.pos].text)
	}
	return m, nil
}

type exprToken struct {
	text   string
	quoted bool // a string literal (text is its value)
}

func tokenizeExpression(s string) ([]exprToken, error) {
	var toks []exprToken
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case strings.ContainsRune("(){}", rune(c)):
			toks = append(toks, exprToken{text: string(c)})
			i++
		case strings.HasPrefix(s[i:], "=="), strings.HasPrefix(s[i:], "||"):
			toks = append(toks, exprToken{text: s[i : i+2]})
			i += 2
		case c == '"':
			var b strings.Builder
			j := i + 1
			for ; j < len(s) && s[j] != '"'; j++ {
				if s[j] == '\\' {
					j++
					if j == len(s) {
						break
					}
				}
				b.WriteByte(s[j])
			}
			if j >= len(s) {
				return nil, errors.New("unterminated string")
			}
			toks = append(toks, exprToken{text: b.String(), quoted: true})
			i = j + 1
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '.':
			j := i
			for j < len(s) && (s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z' || s[j] >= '0' && s[j] <= '9' || s[j] == '_' || s[j] == '.') {
				j++
			}
			toks = append(toks, exprToken{text: s[i:j]})
			i = j
		default:
			return nil, fmt.Errorf("unsupported character %q", c)
		}
	}
	return toks, nil
}

type exprParser struct {
	toks []exprToken
	pos  int
}

func (p *exprParser) peek() (exprToken, bool) {
	if p.pos < len(p.toks) {
		return p.toks[p.pos], true
	}
	return exprToken{}, false
}

// keyword consumes the next token if it is one of words (never a string literal).
func (p *exprParser) keyword(words ...string) bool {
	t, ok := p.peek()
	if !ok || t.quoted {
		return false
	}
	for _, w := range words {
		if t.text == w {
			p.pos++
			return true
		}
	}
	return false
}

func (p *exprParser) str() (string, error) {
	t, ok := p.peek()
	if !ok || !t.quoted {
		return "", errors.New("expected a string")
	}
	p.pos++
	return t.text, nil
}

func (p *exprParser) expr() (hostMatcher, error) {
	first, err := p.term()
	if err != nil {
		return nil, err
	}
	terms := []hostMatcher{first}
	for p.keyword("or", "||") {
		t, err := p.term()
		if err != nil {
			return nil, err
		}
		terms = append(terms, t)
	}
	if len(terms) == 1 {
		return first, nil
	}
	return func(host string) bool {
		for _, t := range terms {
			if t(host) {
				return true
			}
		}
		return false
	}, nil
}

func (p *exprParser) term() (hostMatcher, error) {
	if p.keyword("(") {
		m, err := p.expr()
		if err != nil {
			return nil, err
		}
		if !p.keyword(")") {
			return nil, errors.New("expected )")
		}
		return m, nil
	}
	if !p.keyword("http.host") {
		t, _ := p.peek()
		return nil, fmt.Errorf("only http.host comparisons are understood, not %q", t.text)
	}
	switch {
	case p.keyword("eq", "=="):
		want, err := p.str()
		if err != nil {
			return nil, err
		}
		return func(host string) bool { return host == want }, nil
	case p.keyword("in"):
		if !p.keyword("{") {
			return nil, errors.New("expected { after in")
		}
		set := map[string]bool{}
		for !p.keyword("}") {
			v, err := p.str()
			if err != nil {
				return nil, fmt.Errorf("in a set: %w", err)
			}
			set[v] = true
		}
		if len(set) == 0 {
			return nil, errors.New("an empty set")
		}
		return func(host string) bool { return set[host] }, nil
	}
	return nil, errors.New("only the eq and in operators are understood on http.host")
}
