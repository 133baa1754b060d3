// The files the HTML report is made of, compiled in from web/ and data/paper by CMake
// (html_assets.cc.in): the page's template, script and style, the chart libraries, and
// the paper's Tables 1-3.
#ifndef STRUCTTEST_REPORT_HTML_ASSETS_H_
#define STRUCTTEST_REPORT_HTML_ASSETS_H_

#include <string_view>

namespace structtest::internal {

std::string_view HtmlTemplate();  // web/report.html
std::string_view HtmlStyle();     // web/report.css
std::string_view HtmlScript();    // web/report.js
// The minified builds of vega, vega-lite and vega-embed, and their versions.
std::string_view VegaJs();
std::string_view VegaLiteJs();
std::string_view VegaEmbedJs();
std::string_view ChartLibraryVersions();
std::string_view PaperTable1Csv();
std::string_view PaperTable2Csv();
std::string_view PaperTable3Csv();

}  // namespace structtest::internal

#endif  // STRUCTTEST_REPORT_HTML_ASSETS_H_
