package provider

import (
	"context"
	"regexp"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"golang.org/x/net/idna"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

var hexIDPattern = regexp.MustCompile(`^[0-9a-f]{32}$`)

func isHexID(s string) bool { return hexIDPattern.MatchString(s) }

var uuidPattern = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// isUUID accepts an ID as the tunnel API writes them (lower-case, hyphenated).
func isUUID(s string) bool { return uuidPattern.MatchString(s) }

func isDNSLabel(s string) bool { return route.IsDNSLabel(s) }

// isNormalHostname accepts only the form route.NormalizeHost produces, so that what the user
// wrote is exactly the KV key and the Host the edge compares.
func isNormalHostname(s string) bool {
	h, err := route.NormalizeHost(s)
	return err == nil && h == s
}

// stringCheck is a plan-time validator from a predicate. It skips null and unknown values
// (they are checked once known) and reports on the attribute's own path.
type stringCheck struct {
	ok   func(string) bool
	rule string
	// hide, when set and true for a refused value, keeps the value out of the diagnostic: a
	// URL with user information most likely holds a credential put in the wrong place.
	hide func(string) bool
	// suggest, when set, offers for a refused value the one the user most likely meant, and
	// why it is written so.
	suggest func(string) (value, why string, ok bool)
}

func (v stringCheck) Description(context.Context) string             { return "value must be " + v.rule }
func (v stringCheck) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v stringCheck) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	s := req.ConfigValue.ValueString()
	switch {
	case v.ok(s):
	case v.hide != nil && v.hide(s):
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid Attribute Value",
			"The value (not shown: the part before its \"@\" looks like credentials, which this setting never takes) is not "+v.rule+".")
	default:
		msg := "The value " + quote(s) + " is not " + v.rule + "."
		if v.suggest != nil {
			if meant, why, ok := v.suggest(s); ok {
				msg += " Write it as " + quote(meant) + why + "."
			}
		}
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid Attribute Value", msg)
	}
}

// hasUserInfo reports whether a URL-like value may hold user information ("user:password@"):
// any "@" at all, so that even a value that does not parse is never shown with it.
func hasUserInfo(s string) bool { return strings.Contains(s, "@") }

func hostname() validator.String {
	return stringCheck{ok: isNormalHostname, rule: "a lower-case DNS name without port or trailing dot, such as kamui.app",
		suggest: normalHostnameFor}
}

// normalHostnameFor is the form isNormalHostname accepts of a name written otherwise, if it
// has one: lower-cased, its trailing dot dropped, and an internationalised name (bücher.example)
// in its ASCII form (xn--bcher-kva.example), which is what browsers send as the Host and so what
// the edge looks up. The conversion is IDNA's lookup profile (UTS #46: case folded, NFC).
func normalHostnameFor(s string) (string, string, bool) {
	ascii, err := idna.Lookup.ToASCII(strings.TrimSuffix(s, "."))
	if err != nil {
		return "", "", false
	}
	h, err := route.NormalizeHost(ascii)
	if err != nil || h == s {
		return "", "", false
	}
	why := ""
	for _, r := range s {
		if r >= 0x80 {
			why = " (an internationalised name is written in its ASCII form, the one browsers send)"
			break
		}
	}
	return h, why, true
}

func dnsLabel() validator.String {
	return stringCheck{ok: isDNSLabel, rule: "a DNS label: 1-63 characters of a-z, 0-9 and '-', not starting or ending with '-'",
		suggest: dnsLabelFor}
}

// dnsLabelFor is the label a name in capitals most likely meant ("Shop" → "shop"): the one
// change that keeps it the same name to a DNS resolver, which compares labels without case.
func dnsLabelFor(s string) (string, string, bool) {
	lower := strings.ToLower(s)
	if lower == s || !isDNSLabel(lower) {
		return "", "", false
	}
	return lower, " (DNS names are compared without case; the edge keeps them in lower case)", true
}

// zoneName accepts what normalizeZoneName makes a DNS name of: any case, a trailing dot.
func zoneName() validator.String {
	return stringCheck{ok: func(s string) bool { _, ok := normalizeZoneName(s); return ok },
		rule: "a DNS name such as kamui.app (any case, a trailing dot allowed)"}
}
