#!/usr/bin/env bash
# Run the Array API standard's test suite (data-apis/array-api-tests) against s4tf.
#
#   tools/bench/array_api_tests.sh CHECKOUT [MAX_EXAMPLES] [pytest args...]
#
# CHECKOUT is a clone of data-apis/array-api-tests with its array-api submodule checked
# out; it needs hypothesis and ndindex. The standard is pinned to 2024.12; the fft
# extension is left out (s4tf has none), and so are the special cases of complex arguments
# (s4tf has no complex dtypes). Prints pytest's
# summary line per test file. ARRAY_API_TESTS_FILES="test_a.py test_b.py" runs only those
# files; ARRAY_API_TESTS_LOGS=DIR keeps each file's whole pytest output in DIR/FILE.log;
# ARRAY_API_TESTS_FILE_TIMEOUT (seconds, default 1800) bounds each file.
set -u
checkout=${1:?usage: array_api_tests.sh CHECKOUT [MAX_EXAMPLES] [pytest args...]}
max_examples=${2:-5}
shift $(( $# >= 2 ? 2 : 1 ))
if [ ! -d "$checkout/array_api_tests" ] || [ ! -d "$checkout/array-api/src" ]; then
    echo "array_api_tests.sh: $checkout is not an array-api-tests checkout with its array-api submodule" >&2
    exit 2
fi
export ARRAY_API_TESTS_MODULE=s4tf ARRAY_API_TESTS_VERSION=2024.12 ARRAY_API_TESTS_SKIP_DTYPES=complex64,complex128
cd "$checkout" || exit 2
# s4tf has no complex dtypes; the suite's helpers assume one (max() of no complex dtype).
python - <<'PATCH'
from pathlib import Path
path = Path("array_api_tests/dtype_helpers.py")
text = path.read_text()
old = "[(dt, dtype_nbits[dt]) for dt in complex_dtypes], key=lambda x: x[1]\n)[0]"
new = "[(dt, dtype_nbits[dt]) for dt in complex_dtypes], key=lambda x: x[1], default=(None,)\n)[0]"
if old in text:
    path.write_text(text.replace(old, new))
# test_signatures.py names the widest complex dtype at import: with none, it is not collected.
path = Path("array_api_tests/test_signatures.py")
text = path.read_text()
old = "cmplx_name = dh.dtype_to_name[dh.widest_complex_dtype]\n"
new = "cmplx_name = dh.dtype_to_name[dh.widest_complex_dtype] if dh.widest_complex_dtype is not None else \"complex128\"\n"
if old in text:
    path.write_text(text.replace(old, new))
PATCH
status=0
for file in array_api_tests/test_*.py; do
    case "$file" in *test_fft.py) continue ;; esac
    if [ -n "${ARRAY_API_TESTS_FILES:-}" ]; then
        case " $ARRAY_API_TESTS_FILES " in *" $(basename "$file") "*) ;; *) continue ;; esac
    fi
    log=${ARRAY_API_TESTS_LOGS:+$ARRAY_API_TESTS_LOGS/$(basename "$file" .py).log}
    # The special cases of complex arguments are parametrized by case, not dtype, so the
    # skipped complex dtypes do not skip them: their ids name real(x_i) and imag(x_i).
    # test_has_names checks the fft extension's names too, which s4tf does not have.
    select=()
    case "$file" in
        *test_special_cases.py) select=(-k "not real and not imag") ;;
        *test_has_names.py) select=(-k "not fft") ;;
    esac
    line=$(timeout "${ARRAY_API_TESTS_FILE_TIMEOUT:-1800}" python -m pytest -q -p no:cacheprovider "$file" \
        --max-examples="$max_examples" --hypothesis-disable-deadline --disable-extension fft \
        --skips-file /dev/null --xfails-file /dev/null -rN "${select[@]}" "$@" 2>&1 | tee "${log:-/dev/null}" | tail -1)
    echo "$(basename "$file"): $line"
    case "$line" in *passed*) ;; *) status=1 ;; esac
done
exit $status
