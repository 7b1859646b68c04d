#pragma once
// The named colours of the UI, in one place: the shades the pages, tables and charts share, so that a red that
// means "data was lost" is the same red everywhere and a colour is changed once. Mostly Material Design shades,
// named after their hue and weight (kRed800); a few roles have names of their own (kWarningRed). A colour is
// chosen for the light or the dark theme by the caller (plot::isDarkPalette()).
//
// Header-only and free of the rest of ui/: the chart library (ui/plot) uses it as well.
#include <QColor>
#include <QString>

#include <algorithm>
#include <array>
#include <cstddef>

namespace rtscope::colors {

// Reds.
inline constexpr QRgb kRed50 = 0xffebee;
inline constexpr QRgb kRedA100 = 0xff8a80;
inline constexpr QRgb kRedSoft = 0xff6e6e; ///< the warm line of a chart on the dark theme
inline constexpr QRgb kRed400 = 0xef5350;
inline constexpr QRgb kRed700 = 0xd32f2f;
inline constexpr QRgb kRed800 = 0xc62828;
inline constexpr QRgb kRed900 = 0xb71c1c;
inline constexpr QRgb kRedNight = 0x3b1f1f; ///< a red panel's background on the dark theme
// Pinks and purples.
inline constexpr QRgb kPink200 = 0xf48fb1;
inline constexpr QRgb kPink800 = 0xad1457;
inline constexpr QRgb kPurple200 = 0xce93d8;
inline constexpr QRgb kPurple700 = 0x7b1fa2;
inline constexpr QRgb kPurple800 = 0x6a1b9a;
inline constexpr QRgb kIndigo200 = 0x9fa8da;
inline constexpr QRgb kIndigo800 = 0x283593;
// Blues and cyans.
inline constexpr QRgb kLightBlue300 = 0x4fc3f7;
inline constexpr QRgb kBlue300 = 0x64b5f6;
inline constexpr QRgb kBlue800 = 0x1565c0;
inline constexpr QRgb kBlue900 = 0x0d47a1;
inline constexpr QRgb kCyan300 = 0x4dd0e1;
inline constexpr QRgb kCyan800 = 0x00838f;
inline constexpr QRgb kCyanDeep = 0x00697a;
// Greens.
inline constexpr QRgb kGreen50 = 0xe8f5e9;
inline constexpr QRgb kGreenNight = 0x1f3b22; ///< a green panel's background on the dark theme
inline constexpr QRgb kGreen300 = 0x81c784;
inline constexpr QRgb kGreen800 = 0x2e7d32;
inline constexpr QRgb kLightGreen300 = 0xaed581;
inline constexpr QRgb kLightGreen800 = 0x558b2f;
inline constexpr QRgb kLime300 = 0xdce775;
inline constexpr QRgb kLime800 = 0x9e9d24;
// Ambers and oranges.
inline constexpr QRgb kAmber300 = 0xffd54f;
inline constexpr QRgb kAmber400 = 0xffca28;
inline constexpr QRgb kAmber600 = 0xffb300;
inline constexpr QRgb kAmberGold = 0xf59e0b;
inline constexpr QRgb kAmberDark = 0xb26a00;
inline constexpr QRgb kOrange300 = 0xffb74d;
inline constexpr QRgb kOrange400 = 0xffa726;
inline constexpr QRgb kOrange800 = 0xef6c00;
inline constexpr QRgb kOrange900 = 0xe65100;
// Browns and greys.
inline constexpr QRgb kBrown200 = 0xbcaaa4;
inline constexpr QRgb kBrown600 = 0x6d4c41;
inline constexpr QRgb kBrown700 = 0x5d4037;
inline constexpr QRgb kBrown800 = 0x4e342e;
inline constexpr QRgb kGrey400 = 0xbdbdbd;
inline constexpr QRgb kGreyMid = 0xb0b0b0;
inline constexpr QRgb kGrey500 = 0x9e9e9e;
inline constexpr QRgb kGrey600 = 0x757575;
inline constexpr QRgb kGrey700 = 0x616161;
inline constexpr QRgb kGrey800 = 0x424242;
inline constexpr QRgb kBlueGrey200 = 0xb0bec5;
inline constexpr QRgb kBlueGrey600 = 0x546e7a;
inline constexpr QRgb kBlueGrey700 = 0x455a64;
inline constexpr QRgb kBlueGrey800 = 0x37474f;

// The Okabe–Ito palette (eight hues told apart with every common colour-vision deficiency), and lighter shades of
// some for dark backgrounds: the latency anatomy's swimlane and breakdown bar.
inline constexpr QRgb kOkabeOrange = 0xe69f00;
inline constexpr QRgb kOkabeSkyBlue = 0x56b4e9;
inline constexpr QRgb kOkabeGreen = 0x009e73;
inline constexpr QRgb kOkabeGreenLight = 0x3cc9a0;
inline constexpr QRgb kOkabeYellow = 0xf0e442;
inline constexpr QRgb kOkabeYellowDark = 0x8a7f00; ///< the outline of a yellow mark on a light background
inline constexpr QRgb kOkabeBlue = 0x0072b2;
inline constexpr QRgb kOkabeVermillion = 0xd55e00;
inline constexpr QRgb kOkabeVermillionLight = 0xf08a4b;
inline constexpr QRgb kOkabePurple = 0xcc79a7;
inline constexpr QRgb kOkabePurpleLight = 0xe3a6c8;

// Roles.
/// The latency anatomy (docs/experiments/anatomy.md), light theme / dark theme. A task of a real-time policy holding
/// the measured CPU, and one of a normal policy (OTHER, BATCH, IDLE): vermillion and blue.
inline constexpr QRgb kAnatomyRtTask = kOkabeVermillion;
inline constexpr QRgb kAnatomyRtTaskDark = kOkabeVermillionLight;
inline constexpr QRgb kAnatomyOtherTask = kOkabeBlue;
inline constexpr QRgb kAnatomyOtherTaskDark = kOkabeSkyBlue;
/// The measuring thread on its CPU, and the "return to user" part of a wake-up.
inline constexpr QRgb kAnatomyRunning = kOkabeGreen;
inline constexpr QRgb kAnatomyRunningDark = kOkabeGreenLight;
/// The measuring thread woken but waiting for the CPU, and the "scheduling delay" part.
inline constexpr QRgb kAnatomyWaiting = kOkabeOrange;
/// The deadline → timer part ("timer IRQ delay") and the thread's own timer callback.
inline constexpr QRgb kAnatomyTimer = kOkabePurple;
inline constexpr QRgb kAnatomyTimerDark = kOkabePurpleLight;
/// Interrupt context (hard IRQs, x86 vectors, softirqs, other hrtimer callbacks), and the "interrupts" part.
inline constexpr QRgb kAnatomyInterrupt = kOkabeYellow;
inline constexpr QRgb kAnatomyInterruptEdge = kOkabeYellowDark;
/// What no event tells (drawn hatched), and the idle task.
inline constexpr QRgb kAnatomyUnknown = kGrey500;
inline constexpr QRgb kAnatomyUnknownDark = kGrey600;
/// Data was lost, a run failed, a figure is past its limit: the loss banners, red table cells, bad tile values.
inline constexpr QRgb kWarningRed = kRed800;
/// Darker still: the watchdog banners, the problem list's text, errors in a report.
inline constexpr QRgb kAlarmRed = kRed900;

/// @p rgb as a style sheet or HTML colour ("#c62828").
inline QString css(QRgb rgb)
{
    return QColor(rgb).name();
}

/// A distinct colour for the @p index-th of several compared curves (CPUs, settings): the histogram line, the table
/// swatch and the heat-strip row share it. Ten hues a projector keeps apart, dark shades on light backgrounds and
/// light ones on dark backgrounds (@p dark); the first two are the latency page's live and reference colours.
inline QColor curveColor(int index, bool dark)
{
    static constexpr std::array<QRgb, 10> kLight = {kBlue800, kOrange900, kGreen800, kRed800,      kPurple800,
                                                    kCyan800, kPink800,   kBrown700, kBlueGrey600, kLime800};
    static constexpr std::array<QRgb, 10> kDark = {kBlue300, kOrange400, kGreen300, kRed400,      kPurple200,
                                                   kCyan300, kPink200,   kBrown200, kBlueGrey200, kLime300};
    const auto& shades = dark ? kDark : kLight;
    return QColor(shades[size_t(std::max(index, 0)) % shades.size()]);
}

} // namespace rtscope::colors
