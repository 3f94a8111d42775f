package agents

import (
	"testing"
	"time"
)

// TestWindows pins the calendar windows of CONTRACT.md section 5: the UTC
// day, the ISO week from Monday and the month, each starting at 00:00 UTC,
// whatever the location of the time asked about.
func TestWindows(t *testing.T) {
	utc := func(y int, m time.Month, d, h, min, s, ns int) time.Time {
		return time.Date(y, m, d, h, min, s, ns, time.UTC)
	}
	day := func(y int, m time.Month, d int) time.Time { return utc(y, m, d, 0, 0, 0, 0) }
	plus2 := time.FixedZone("UTC+2", 2*60*60)
	minus5 := time.FixedZone("UTC-5", -5*60*60)
	cases := []struct {
		name             string
		now              time.Time
		day, week, month time.Time
	}{
		{"a Wednesday at noon", utc(2026, 6, 10, 12, 0, 0, 0), day(2026, 6, 10), day(2026, 6, 8), day(2026, 6, 1)},
		{"the last instant of a Sunday is still last week", utc(2026, 6, 7, 23, 59, 59, 999999999),
			day(2026, 6, 7), day(2026, 6, 1), day(2026, 6, 1)},
		{"Monday midnight starts the day and the week", utc(2026, 6, 8, 0, 0, 0, 0),
			day(2026, 6, 8), day(2026, 6, 8), day(2026, 6, 1)},
		{"a Sunday belongs to the week of the Monday before", utc(2026, 6, 14, 8, 0, 0, 0),
			day(2026, 6, 14), day(2026, 6, 8), day(2026, 6, 1)},
		{"the last instant of a month", utc(2026, 6, 30, 23, 59, 59, 999999999),
			day(2026, 6, 30), day(2026, 6, 29), day(2026, 6, 1)},
		{"the first instant of a month, mid-week", utc(2026, 7, 1, 0, 0, 0, 0),
			day(2026, 7, 1), day(2026, 6, 29), day(2026, 7, 1)},
		{"New Year's Day keeps the week that began in December", utc(2027, 1, 1, 0, 0, 0, 0),
			day(2027, 1, 1), day(2026, 12, 28), day(2027, 1, 1)},
		{"a leap day", utc(2028, 2, 29, 23, 59, 59, 0), day(2028, 2, 29), day(2028, 2, 28), day(2028, 2, 1)},
		{"the day after a leap day", utc(2028, 3, 1, 0, 0, 0, 0), day(2028, 3, 1), day(2028, 2, 28), day(2028, 3, 1)},
		// 01:30 on Monday at UTC+2 is 23:30 on Sunday in UTC.
		{"a time east of UTC counts on its UTC day", time.Date(2026, 6, 8, 1, 30, 0, 0, plus2),
			day(2026, 6, 7), day(2026, 6, 1), day(2026, 6, 1)},
		// 20:00 on 30 June at UTC-5 is 01:00 on 1 July in UTC.
		{"a time west of UTC counts in its UTC month", time.Date(2026, 6, 30, 20, 0, 0, 0, minus5),
			day(2026, 7, 1), day(2026, 6, 29), day(2026, 7, 1)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, w, m := Windows(c.now)
			if !d.Equal(c.day) || !w.Equal(c.week) || !m.Equal(c.month) {
				t.Fatalf("Windows(%v) = %v, %v, %v; want %v, %v, %v", c.now, d, w, m, c.day, c.week, c.month)
			}
			for _, s := range []time.Time{d, w, m} {
				if s.Location() != time.UTC {
					t.Fatalf("window start %v is not in UTC", s)
				}
			}
			if w.Weekday() != time.Monday {
				t.Fatalf("week starts on %v", w.Weekday())
			}
		})
	}
}
