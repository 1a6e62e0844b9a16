package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
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

// unexpectedProviderDataDiag is reported by a resource or data source that received no provider
// data: a bug in the provider or a test harness, not something the user did.
func unexpectedProviderDataDiag() diag.Diagnostic {
	return diag.NewErrorDiagnostic("Unexpected Provider Data",
		"The provider handed this object unexpected configuration data. This is a bug in the provider; please report it.")
}
