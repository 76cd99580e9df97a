package kv

import (
	"reflect"
	"testing"
)

// Each field of Stats has exactly one entry in StatsFields, and names are
// unique: a field added to Stats and not to the table fails here.
func TestStatsFieldsCoverStats(t *testing.T) {
	var st Stats
	names := map[string]bool{}
	for i, f := range StatsFields {
		if names[f.Name] {
			t.Errorf("%s twice", f.Name)
		}
		names[f.Name] = true
		*f.Of(&st) = int64(i + 1)
	}
	v := reflect.ValueOf(st)
	seen := map[int64]string{}
	for i := 0; i < v.NumField(); i++ {
		name := v.Type().Field(i).Name
		n := v.Field(i).Int()
		if n == 0 {
			t.Errorf("Stats.%s has no entry in StatsFields", name)
			continue
		}
		if other, dup := seen[n]; dup {
			t.Errorf("StatsFields[%d] is Stats.%s and Stats.%s", n-1, other, name)
		}
		seen[n] = name
	}
	if len(StatsFields) != v.NumField() {
		t.Errorf("%d entries for %d fields", len(StatsFields), v.NumField())
	}
}
