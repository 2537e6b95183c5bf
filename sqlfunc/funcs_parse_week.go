package sqlfunc

import (
	"time"

	"logq/expr"
	"logq/types"
)

// dateParts is how PARSE_ puts a date together from elements that do not
// name a year, month or day outright, as ZetaSQL's parser does
// (parse_date_time.cc: CanonicalizeDateParseContext and
// UpdateYearMonthDayIfNeeded, its tests in parse_date_time_test.cc):
//
//   - %j (day of the year), %U / %W (week of the year, from Sunday /
//     Monday; week 0 holds the days before the first such day) and a
//     weekday (%A %a %u %w) build a date in the year read; %G / %g (ISO
//     year), %V (ISO week) and %J (day of the ISO year) an ISO one.
//   - The ISO elements count only when no other date element is written
//     (%Y %y %C %m %d %e %b %B %h %D %F %x %c %Q %s %j %U %W and their
//     %E/%O forms, except %OW), and only with %G or %g: %V and %J alone
//     are read and ignored.
//   - Of a day of the year and a week, the one written last wins, unless
//     the week has no weekday: then the day of the year wins. A weekday
//     counts only with the week it falls in (the last weekday written);
//     alone it is read and ignored.
//   - A date built from %j, %U or %W sets the year, month and day only
//     where no element written after it set them (%Y %W %d: the day is
//     %d's). A date built from ISO elements sets all three.
type dateParts struct {
	// The position of the last element that set the year, month and
	// day, -1 for none.
	lastYear, lastMonth, lastDay int
	nonISO                       bool // a non-ISO date element was written
	elems                        []dateElem
}

// dateElem is one such element: j, J, U, W, V, G, g (the year, its
// century filled in), or a for any weekday (0 for Sunday to 6).
type dateElem struct {
	c      byte
	pos, v int
}

func newDateParts() dateParts { return dateParts{lastYear: -1, lastMonth: -1, lastDay: -1} }

func (d *dateParts) add(c byte, pos, v int) { d.elems = append(d.elems, dateElem{c, pos, v}) }

// year, month and day record an element at pos that set that field.
func (d *dateParts) year(pos int)  { d.lastYear, d.nonISO = pos, true }
func (d *dateParts) month(pos int) { d.lastMonth, d.nonISO = pos, true }
func (d *dateParts) day(pos int)   { d.lastDay, d.nonISO = pos, true }

// resolve applies the elements to the year, month and day read (fn names
// the function for errors).
func (d *dateParts) resolve(fn string, year, month, day *int) error {
	if len(d.elems) == 0 {
		return nil
	}
	weekday, isoYear, doy, week, isoWeek, isoDoy := -1, -1, -1, -1, -1, -1 // the last of each
	for i, e := range d.elems {
		switch e.c {
		case 'a':
			weekday = i
		case 'G', 'g':
			isoYear = i
		case 'J':
			isoDoy = i
		case 'j':
			doy = i
		case 'U', 'W':
			week = i
		case 'V':
			isoWeek = i
		}
	}
	iso := isoYear >= 0 && !d.nonISO
	if iso {
		doy, week = isoDoy, isoWeek
	}
	if doy >= 0 {
		if doy > week || weekday < 0 {
			week, weekday = -1, -1
		} else {
			doy = -1
		}
	} else if week < 0 {
		weekday = -1
	}
	if iso {
		t, err := isoDate(d.elems[isoYear].v, d.elemOf(week), d.elemOf(doy), d.elemOf(weekday))
		if err != nil {
			return expr.EvalErr("%s: %v", fn, err)
		}
		*year, *month, *day = t.Year(), int(t.Month()), t.Day()
		return nil
	}
	if week < 0 && doy < 0 {
		return nil
	}
	jan1 := time.Date(*year, 1, 1, 0, 0, 0, 0, time.UTC)
	var t time.Time
	pos := 0
	if week >= 0 {
		e := d.elems[week]
		first := time.Sunday
		if e.c == 'W' {
			first = time.Monday
		}
		// The year's first such day: week 1 starts on it, week 0 before it.
		start := jan1.AddDate(0, 0, (int(first)-int(jan1.Weekday())+7)%7)
		if lead, n := start.YearDay()-1, yearDays(*year); e.v == 0 && lead == 0 || e.v > 0 && lead+7*(e.v-1) >= n {
			return expr.EvalErr("%s: week number %d is invalid for year %d", fn, e.v, *year)
		}
		t = start.AddDate(0, 0, 7*(e.v-1))
		if weekday >= 0 {
			t = t.AddDate(0, 0, (d.elems[weekday].v-int(first)+7)%7)
		}
		pos = e.pos
	} else {
		e := d.elems[doy]
		if e.v > yearDays(*year) {
			return expr.EvalErr("%s: year %d has %d days, but the day of the year read is %d", fn, *year, yearDays(*year), e.v)
		}
		t, pos = jan1.AddDate(0, 0, e.v-1), e.pos
	}
	if d.lastYear < pos {
		*year = t.Year()
	}
	if d.lastMonth < pos {
		*month = int(t.Month())
	}
	if d.lastDay < pos {
		*day = t.Day()
	}
	return nil // parseTime checks the day against the month (%Y %W %d)
}

// elemOf is the element at index i, nil for -1.
func (d *dateParts) elemOf(i int) *dateElem {
	if i < 0 {
		return nil
	}
	return &d.elems[i]
}

// isoDate is the date of ISO year y: its first day (the Monday of the week
// that holds 4 January), the Monday of ISO week w (and the weekday wd in
// that week), or the ISO day of the year doy.
func isoDate(y int, w, doy, wd *dateElem) (time.Time, error) {
	start, next := isoYearStart(y), isoYearStart(y+1)
	days := int(next.Sub(start).Hours() / 24) // 364 or 371
	switch {
	case w != nil:
		if w.v == 53 && days < 371 {
			return time.Time{}, expr.EvalErr("ISO year %d has no week 53", y)
		}
		t := start.AddDate(0, 0, 7*(w.v-1))
		if wd != nil {
			t = t.AddDate(0, 0, (wd.v+6)%7) // Monday first
		}
		return t, nil
	case doy != nil:
		if doy.v > days {
			return time.Time{}, expr.EvalErr("ISO year %d has %d days, but the day of the year read is %d", y, days, doy.v)
		}
		return start.AddDate(0, 0, doy.v-1), nil
	}
	return start, nil
}

// isoYearStart is the first day of ISO year y (types.ISOYearStart's).
func isoYearStart(y int) time.Time {
	return types.ToTime(types.ISOYearStart(time.Date(y, 1, 4, 0, 0, 0, 0, time.UTC).UnixMicro()))
}

// yearDays is the number of days of year y.
func yearDays(y int) int {
	return time.Date(y, 12, 31, 0, 0, 0, 0, time.UTC).YearDay()
}
