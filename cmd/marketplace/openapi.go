package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"marketplace/internal/httpapi/openapi"
)

// runOpenAPI writes a published OpenAPI document to stdout, byte for byte as
// the server serves it (or indented, for tools that report line numbers), so
// tools such as CI's linter can read it without a server.
func runOpenAPI(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("openapi", flag.ContinueOnError)
	fs.SetOutput(stderr)
	variant := fs.String("variant", "a", "which document: a (/api/v1/openapi.json) or b (/v1/openapi.json)")
	indent := fs.Bool("indent", false, "indent the JSON")
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "openapi: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	name, ok := map[string]string{"a": openapi.A, "b": openapi.B}[*variant]
	if !ok {
		fmt.Fprintf(stderr, "openapi: -variant must be a or b, not %q\n", *variant)
		return 2
	}
	doc, err := openapi.JSON(name)
	if err != nil {
		fmt.Fprintln(stderr, "openapi:", err)
		return 1
	}
	if *indent {
		var buf bytes.Buffer
		if err := json.Indent(&buf, doc, "", "  "); err != nil {
			fmt.Fprintln(stderr, "openapi:", err)
			return 1
		}
		doc = append(buf.Bytes(), '\n')
	}
	if _, err := stdout.Write(doc); err != nil {
		fmt.Fprintln(stderr, "openapi:", err)
		return 1
	}
	return 0
}
