//===- FmtLibrary.cpp - fmt's compiled part, built once -------------------===//
//
// fmt ships as headers plus a compiled part (format-inl.h: the float
// formatting, vformat, the error types). With FMT_HEADER_ONLY every
// translation unit that formats compiles that part again at -O3, about 2 s
// each in the ~120 units that include fmt (minutes of every build, CI's two
// among them). runtime/CMakeLists.txt leaves FMT_HEADER_ONLY off where the
// fmt headers are version 9 (Debian bookworm's 9.1, the project's
// dependency, also what scripts/make-deps.sh carries to the GPU machine),
// and this file is the one unit that compiles format-inl.h: FMT_FUNC is
// empty here, so its functions are defined once with external linkage, and
// the templates that fmt 9's headers declare `extern template` (or call
// without defining) are instantiated below. With any other fmt version the
// build keeps FMT_HEADER_ONLY and this file compiles to nothing.
//
// The runtime's static library carries these definitions, so an embedder
// links proofc::runtime alone (docs/embedding.md, "Dependencies").
//
//===----------------------------------------------------------------------===//
#ifndef FMT_HEADER_ONLY

#include <fmt/format-inl.h>

#if FMT_VERSION < 90000 || FMT_VERSION >= 100000
#error                                                                         \
    "FmtLibrary.cpp instantiates fmt 9's compiled part: build other fmt versions with FMT_HEADER_ONLY (runtime/CMakeLists.txt)"
#endif

FMT_BEGIN_NAMESPACE
namespace detail {

// Shortest round-trip float formatting (fmt's write_float calls these).
template FMT_API auto dragonbox::to_decimal(float) noexcept
    -> dragonbox::decimal_fp<float>;
template FMT_API auto dragonbox::to_decimal(double) noexcept
    -> dragonbox::decimal_fp<double>;

#ifndef FMT_STATIC_THOUSANDS_SEPARATOR
template FMT_API locale_ref::locale_ref(const std::locale &);
template FMT_API auto locale_ref::get<std::locale>() const -> std::locale;
#endif

// format.h declares these `extern template` when not header-only.
template FMT_API auto thousands_sep_impl(locale_ref)
    -> thousands_sep_result<char>;
template FMT_API auto thousands_sep_impl(locale_ref)
    -> thousands_sep_result<wchar_t>;
template FMT_API auto decimal_point_impl(locale_ref) -> char;
template FMT_API auto decimal_point_impl(locale_ref) -> wchar_t;

template FMT_API void buffer<char>::append(const char *, const char *);
template FMT_API void buffer<wchar_t>::append(const wchar_t *, const wchar_t *);

// The formatting loop that vformat (defined above, in format-inl.h) runs.
template FMT_API void vformat_to(buffer<char> &, string_view,
                                 basic_format_args<FMT_BUFFER_CONTEXT(char)>,
                                 locale_ref);

} // namespace detail
FMT_END_NAMESPACE

#endif // FMT_HEADER_ONLY
