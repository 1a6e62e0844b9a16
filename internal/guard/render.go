package guard

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// Format is how the sub-command prints a report.
type Format string

// The formats.
const (
	// FormatText is for a terminal: a table of changes by class, then the verdict.
	FormatText Format = "text"
	// FormatMarkdown is for a CI step summary ($GITHUB_STEP_SUMMARY).
	FormatMarkdown Format = "markdown"
	// FormatJSON is for machines: the Report, verbatim.
	FormatJSON Format = "json"
)

// Render writes r in format f, in one piece: an error says it did not arrive whole.
func Render(w io.Writer, r *Report, f Format) error {
	var b strings.Builder
	switch f {
	case FormatText:
		if err := renderText(&b, r); err != nil {
			return err
		}
	case FormatMarkdown:
		renderMarkdown(&b, r)
	case FormatJSON:
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Verdict string `json:"verdict"`
			*Report
		}{r.Verdict(), r})
	default:
		return fmt.Errorf("unknown format %q (use text, json or markdown)", f)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// row is one line of the table: a change under one of its classes. A change of several classes
// is listed under each, so every class's group is complete.
type row struct {
	class  Class
	change Change
}

func rows(r *Report) []row {
	var out []row
	for _, k := range AllClasses {
		for _, c := range r.Changes {
			if c.Has(k) {
				out = append(out, row{k, c})
			}
		}
	}
	return out
}

func classNames(c Change) string {
	names := make([]string, len(c.Classes))
	for i, k := range c.Classes {
		names[i] = string(k)
	}
	return strings.Join(names, "+")
}

func renderText(w *strings.Builder, r *Report) error {
	fmt.Fprintf(w, "%d resource change(s) in the plan%s\n", len(r.Changes), madeBy(r))
	if rs := rows(r); len(rs) > 0 {
		var table strings.Builder
		table.WriteString("CLASS\tADDRESS\tACTION\tCLASSES\n")
		for _, x := range rs {
			fmt.Fprintf(&table, "%s\t%s\t%s\t%s\n", x.class, x.change.DisplayAddress(), x.change.Action(), classNames(x.change))
		}
		w.WriteString("\n")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		if _, err := io.WriteString(tw, table.String()); err != nil {
			return err
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	fmt.Fprintf(w, "\n%s: %s\n", r.Verdict(), r.Reason)
	return nil
}

func renderMarkdown(w *strings.Builder, r *Report) {
	mark := "✅"
	if !r.Allowed {
		mark = "⛔"
	}
	fmt.Fprintf(w, "### Plan guard: %s %s\n\n", mark, r.Verdict())
	if r.Allowed {
		fmt.Fprintf(w, "%s.\n", mdText(r.Reason))
	} else {
		for _, v := range r.Violations {
			fmt.Fprintf(w, "- **%s**: %s.\n", v.Rule, mdText(v.Message))
		}
	}
	fmt.Fprintf(w, "\n%d resource change(s)%s.\n", len(r.Changes), madeBy(r))
	if rs := rows(r); len(rs) > 0 {
		fmt.Fprintln(w, "\n| class | address | action | classes |\n| --- | --- | --- | --- |")
		for _, x := range rs {
			fmt.Fprintf(w, "| %s | %s | %s | %s |\n", x.class, mdCode(x.change.DisplayAddress()), mdText(x.change.Action()), classNames(x.change))
		}
	}
}

func madeBy(r *Report) string {
	if r.TerraformVersion == "" {
		return ""
	}
	return " (made by CLI version " + r.TerraformVersion + ")"
}

// mdText keeps a plain string from breaking a table row or a list item.
func mdText(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "\r", " ").Replace(s)
}

// mdCode puts an address in a code span; addresses hold quotes and brackets, never backticks,
// but a hostile plan might, so they are replaced.
func mdCode(s string) string {
	return "`" + strings.NewReplacer("`", "'", "|", `\|`, "\n", " ", "\r", " ").Replace(s) + "`"
}
