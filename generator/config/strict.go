package config

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/go-viper/mapstructure/v2"
)

// strictNumbers is the decode option every Unmarshal of a Site uses.
// viper's weak typing turns true into 1 and 2.5 into 2: kvDtypeBytes:
// true sized every cache as FP8 and concurrency: 2.5 served 2. This layer
// decodes a number into an integer only when it is one, into a ratio only
// from a number, and a boolean only from a boolean; text (environment
// variables, flags, quoted YAML) is parsed with the same rules. viper's
// other conversions (a comma-separated variable to a list) stay.
func strictNumbers(c *mapstructure.DecoderConfig) {
	c.WeaklyTypedInput = true
	c.DecodeHook = mapstructure.ComposeDecodeHookFunc(strictHook, c.DecodeHook)
}

// typeError is a value of the wrong type; decode names its key.
type typeError struct{ want, found string }

func (e *typeError) Error() string { return "expected " + e.want + ", found " + e.found }

func strictHook(from, to reflect.Type, data any) (any, error) {
	v := reflect.ValueOf(data)
	switch to.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		switch from.Kind() {
		case reflect.Bool:
			return nil, &typeError{"an integer", fmt.Sprintf("%v (a boolean)", data)}
		case reflect.Float32, reflect.Float64:
			f := v.Float()
			if f != math.Trunc(f) || math.IsInf(f, 0) {
				return nil, &typeError{"an integer", fmt.Sprintf("%v (a fraction is not rounded)", data)}
			}
		case reflect.String:
			n, err := strconv.ParseInt(strings.TrimSpace(v.String()), 10, 64)
			if err != nil {
				return nil, &typeError{"an integer", strconv.Quote(v.String())}
			}
			return n, nil
		}
	case reflect.Float32, reflect.Float64:
		switch from.Kind() {
		case reflect.Bool:
			return nil, &typeError{"a number", fmt.Sprintf("%v (a boolean)", data)}
		case reflect.Float32, reflect.Float64:
			if f := v.Float(); f != 0 && math.Abs(f) < 0x1p-1022 {
				return nil, &typeError{"a number of normal size", fmt.Sprintf("%v (a denormal number)", data)}
			}
		case reflect.String:
			f, err := strconv.ParseFloat(strings.TrimSpace(v.String()), 64)
			if err != nil {
				return nil, &typeError{"a number", strconv.Quote(v.String())}
			}
			if f != 0 && math.Abs(f) < 0x1p-1022 {
				return nil, &typeError{"a number of normal size", fmt.Sprintf("%v (a denormal number)", v.String())}
			}
			return f, nil
		}
	case reflect.Bool:
		switch from.Kind() {
		case reflect.Bool:
		case reflect.String:
			b, err := strconv.ParseBool(strings.TrimSpace(v.String()))
			if err != nil {
				return nil, &typeError{"true or false", strconv.Quote(v.String())}
			}
			return b, nil
		default:
			return nil, &typeError{"true or false", fmt.Sprintf("%v", data)}
		}
	}
	return data, nil
}

// decodeKeyRe finds the key in mapstructure's "decoding 'sizing.contexts[1]'".
var decodeKeyRe = regexp.MustCompile(`'([a-z0-9_.\[\]]+)'`)

// typeFieldError turns a decoding error into a FieldError naming the key
// as hugo-like.yaml spells it; nil when err is not a value of the wrong
// type.
func typeFieldError(err error) *FieldError {
	var te *typeError
	if !errors.As(err, &te) {
		return nil
	}
	key := ""
	if m := decodeKeyRe.FindStringSubmatch(err.Error()); m != nil {
		key = m[1]
	}
	index := ""
	if i := strings.IndexByte(key, '['); i >= 0 {
		key, index = key[:i], key[i:]
	}
	return &FieldError{Key: displayKey(key) + index, Msg: te.Error()}
}
