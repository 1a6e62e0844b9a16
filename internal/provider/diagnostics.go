package provider

import (
	"errors"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/bundle"
)

// The diagnostics more than one place reports. Each says what failed, then how to fix it; none
// ever contains a secret value.

func unknownSettingDiag(attr path.Path, env string) diag.Diagnostic {
	return diag.NewAttributeErrorDiagnostic(attr, "Unknown Provider Setting",
		"The provider cannot be configured because "+attr.String()+" depends on a value that is known only after apply. "+
			"Set it to a literal or a variable, or leave it out and set the "+env+" environment variable.")
}

func missingSettingDiag(attr path.Path, env string) diag.Diagnostic {
	return diag.NewAttributeErrorDiagnostic(attr, "Missing Provider Setting",
		"The provider needs "+attr.String()+" and it is empty. "+
			"Set "+attr.String()+" in the provider block or the "+env+" environment variable. "+
			"For a local edge, source the env file it writes: . <state-dir>/env")
}

// missingZoneDiag is reported on attr by whatever needs the zone when neither zone_id nor
// zone_name is set.
func missingZoneDiag(attr path.Path) diag.Diagnostic {
	return diag.NewAttributeErrorDiagnostic(attr, "Missing Provider Setting",
		"The provider needs the platform's zone for this and none is set. Set zone_id (the zone's ID) or zone_name (its "+
			"name, which the provider looks up in account_id) in the provider block, or the "+EnvZoneID+" or "+EnvZoneName+
			" environment variable. For a local edge, source the env file it writes: . <state-dir>/env")
}

// waitInterruptedDiag reports a wait that Terraform stopped (an interrupted apply or destroy
// cancels the operation's context) before its own timeout passed: the error must not say the
// wait ran out, nor advise raising a timeout that was never reached. what is what was awaited,
// waited how long, and next what was kept and what to do now.
func waitInterruptedDiag(what string, waited time.Duration, next string) diag.Diagnostic {
	return diag.NewErrorDiagnostic("Wait Interrupted",
		"Terraform stopped the operation after "+waited.Round(time.Second).String()+" while the provider waited for "+what+
			", before its timeout. "+next)
}

// unexpectedProviderDataDiag is reported by a resource or data source that received no provider
// data: a bug in the provider or a test harness, not something the user did.
func unexpectedProviderDataDiag() diag.Diagnostic {
	return diag.NewErrorDiagnostic("Unexpected Provider Data",
		"The provider handed this object unexpected configuration data. This is a bug in the provider; please report it.")
}

// bundleBuildDiag reports a failed build of the bundled sources: a missing toolchain says how to
// install one; a compile error shows what the compiler said, on sourcesAttr (the attribute naming
// a fork's checkout) or, when path.Empty(), as a failure of the sources embedded in the provider.
// title is Title Case ("Edge Worker"), noun the same in a sentence ("the edge Worker").
func bundleBuildDiag(title, noun string, sourcesAttr path.Path, err error) diag.Diagnostic {
	var buildErr *bundle.BuildError
	switch {
	case errors.Is(err, bundle.ErrNoToolchain):
		return diag.NewErrorDiagnostic("Go Toolchain Not Found",
			"The provider builds "+noun+" from source with the Go toolchain, and none was found. "+err.Error())
	case errors.Is(err, bundle.ErrToolchainFetch):
		return diag.NewErrorDiagnostic("Go Toolchain Not Fetched",
			"The provider builds "+noun+" with "+bundle.PinnedToolchain+" on every machine, so that every machine builds the "+
				"same bytes, and the installed go command could not fetch it. "+err.Error())
	case errors.As(err, &buildErr) && !sourcesAttr.Equal(path.Empty()):
		return diag.NewAttributeErrorDiagnostic(sourcesAttr, title+" Does Not Build",
			"Building "+noun+" failed; fix the sources and plan again.\n\n"+buildErr.Error())
	case errors.As(err, &buildErr):
		return diag.NewErrorDiagnostic(title+" Does Not Build",
			"Building "+noun+" from the sources embedded in the provider failed. They build with every supported Go "+
				"toolchain, so check the one in use ("+bundle.GoEnvVar+", else go on PATH), or report this as a provider bug.\n\n"+
				buildErr.Error())
	default:
		return diag.NewErrorDiagnostic("Unable to Build "+title, "Building "+noun+" failed: "+err.Error())
	}
}
