package yamlx

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
)

// checkFinite refuses a NaN, an infinity or a denormal number anywhere in
// a decoded value: each would reach a page as a computed figure ("fact
// cost…: unsupported value +Inf") far from the input that caused it. The
// error names the file, the line and the field.
func checkFinite(name string, b []byte, v any) error {
	path, f, ok := firstNonFinite(reflect.ValueOf(v), "", 0)
	if ok {
		return nil
	}
	what := "a finite number"
	if !math.IsNaN(f) && !math.IsInf(f, 0) {
		what = fmt.Sprintf("a finite number of normal size (at least %g in magnitude, or 0)", math.SmallestNonzeroFloat64*(1<<52))
	}
	msg := fmt.Sprintf("field %s: expected %s, found %v", path, what, f)
	if l := Line(b, path); l > 0 {
		return fmt.Errorf("%s: line %d: %s", name, l, msg)
	}
	return fmt.Errorf("%s: %s", name, msg)
}

// maxWalkDepth bounds the walk on self-referencing values.
const maxWalkDepth = 64

// firstNonFinite walks v depth first and returns the path of the first
// float that is NaN, infinite or subnormal; ok when there is none.
func firstNonFinite(v reflect.Value, path string, depth int) (string, float64, bool) {
	if depth > maxWalkDepth || !v.IsValid() {
		return "", 0, true
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return "", 0, true
		}
		return firstNonFinite(v.Elem(), path, depth+1)
	case reflect.Float32, reflect.Float64:
		f := v.Float()
		if math.IsNaN(f) || math.IsInf(f, 0) || (f != 0 && math.Abs(f) < 0x1p-1022) {
			return path, f, false
		}
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			sf := t.Field(i)
			if !sf.IsExported() {
				continue
			}
			key, _, _ := strings.Cut(sf.Tag.Get("yaml"), ",")
			if key == "-" {
				continue
			}
			if key == "" {
				key = strings.ToLower(sf.Name)
			}
			if p, f, ok := firstNonFinite(v.Field(i), join(path, key), depth+1); !ok {
				return p, f, false
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if p, f, ok := firstNonFinite(v.Index(i), path+"["+strconv.Itoa(i)+"]", depth+1); !ok {
				return p, f, false
			}
		}
	case reflect.Map:
		iter := v.MapRange()
		for iter.Next() {
			if p, f, ok := firstNonFinite(iter.Value(), join(path, fmt.Sprint(iter.Key().Interface())), depth+1); !ok {
				return p, f, false
			}
		}
	}
	return "", 0, true
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
