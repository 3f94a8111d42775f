package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"marketplace/internal/app"
	"marketplace/internal/config"
	"marketplace/internal/seed"
)

// seedFlags takes the seed command's own flags out of args; the rest are
// the service's configuration flags.
func seedFlags(args []string, stderr io.Writer) (seed.Options, []string, error) {
	var opts seed.Options
	fs := flag.NewFlagSet("seed", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&opts.Listings, "listings", 0, "how many synthetic listings to add (required)")
	fs.IntVar(&opts.Sellers, "sellers", 0, "spread them over this many new sellers (default one per 500, at least 5)")
	fs.IntVar(&opts.SoldPercent, "sold-percent", 10, "percent of the listings made sold, for price checks")
	fs.Uint64Var(&opts.Seed, "seed", 1, "random seed; the same seed gives the same listings")
	var own, rest []string
	for i := 0; i < len(args); i++ {
		name := strings.TrimLeft(strings.SplitN(args[i], "=", 2)[0], "-")
		if fs.Lookup(name) == nil && name != "h" && name != "help" {
			rest = append(rest, args[i])
			continue
		}
		own = append(own, args[i])
		if !strings.Contains(args[i], "=") && i+1 < len(args) && name != "h" && name != "help" {
			own = append(own, args[i+1])
			i++
		}
	}
	if err := fs.Parse(own); err != nil {
		return opts, nil, err
	}
	if opts.Listings <= 0 {
		return opts, nil, errors.New("--listings N (N > 0) is required")
	}
	return opts, rest, nil
}

func runSeed(ctx context.Context, opts seed.Options, args []string, getenv config.Lookup, stdout, stderr io.Writer) int {
	cfg, code, ok := loadConfig(getenv, args, stderr)
	if !ok {
		return code
	}
	db, err := app.Open(ctx, cfg)
	if err != nil {
		fmt.Fprintln(stderr, "open database:", err)
		return 1
	}
	defer db.Close()
	start := time.Now()
	res, err := seed.Run(ctx, db, time.Now().UTC(), opts, func(done int) {
		if done%10000 == 0 || done == opts.Listings {
			fmt.Fprintf(stdout, "%d/%d listings\n", done, opts.Listings)
		}
	})
	if err != nil {
		fmt.Fprintln(stderr, "seed:", err)
		return 1
	}
	fmt.Fprintf(stdout, "added %d listings (%d sold) for %d sellers to %s in %s\n", res.Listings, res.Sold, res.Sellers,
		db.Dialect(), time.Since(start).Round(time.Millisecond))
	return 0
}
