"""The window's language: Qt translators, the View ▸ Language menu, core texts, a CJK font.

Every string a user reads goes through `QCoreApplication.translate` / `self.tr`; the
Chinese catalogue is `resources/i18n/tfdebug_zh_CN.ts`, compiled to the `.qm` next to it
(`python -m tfdebug.ui.i18n.catalog` regenerates both; README "Translations").
Installing or removing a translator makes Qt send every widget a LanguageChange event;
widgets with text of their own answer it in `changeEvent` by setting their texts again.

Texts that come from Qt-free layers (stage kinds, block titles, the core's error
sentences) are English data there; `kind_title`, `title` and `error_text` translate them
here (their catalogue entries come from `tfdebug/ui/i18n/core_strings.py`, generated).
Values inside those sentences that are words (`core.phrases.Phrase`, `Choices`) are
translated part by part by `phrase_text`. What a message says is kept as a Phrase
(`error_phrase`) or a `Said` (`said(lambda: self.tr(…))`), so `shown_text` can say it
again after the language changed.
"""

from __future__ import annotations

import re
from importlib import resources
from typing import Callable

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QEvent, QLibraryInfo, QLocale, QObject, QSettings, QTranslator
from PySide6.QtGui import QAction, QActionGroup, QFont, QFontDatabase
from PySide6.QtWidgets import QApplication, QMenu, QWidget

from tfdebug.core.phrases import Choices, Phrase

# Language code -> its name in that language (a language menu lists each in its own script).
LANGUAGES = {"en": "English", "zh": "中文"}
CATALOGUES = {"zh": "tfdebug_zh_CN"}       # language -> .qm file name (without suffix) in resources/i18n
QT_CATALOGUES = {"zh": "qtbase_zh_CN"}     # Qt's own texts (OK, Cancel, file dialogs) for that language
SETTING = "ui/language"
# Fonts with Chinese glyphs, best first: Noto/Source Han (Linux, fonts-noto-cjk), WenQuanYi (Linux),
# Microsoft YaHei / SimHei (Windows), PingFang / Hiragino (macOS).
CJK_FAMILIES = ("Noto Sans CJK SC", "Noto Sans SC", "Source Han Sans SC", "Source Han Sans CN",
                "WenQuanYi Micro Hei", "WenQuanYi Zen Hei", "Microsoft YaHei", "PingFang SC",
                "Hiragino Sans GB", "SimHei", "Droid Sans Fallback", "AR PL UMing CN")

_installed: list[QTranslator] = []
_language = "en"


def translate(context: str, text: str, disambiguation: str | None = None) -> str:
    """`QCoreApplication.translate`, for texts built outside a QObject."""
    return QCoreApplication.translate(context, text, disambiguation)


def current_language() -> str:
    """The code of the language the window speaks now ("en" or "zh")."""
    return _language


def normalise(code: str | None) -> str | None:
    """'zh', 'zh_CN', 'zh-Hans', 'en_US' … -> a code of LANGUAGES, or None when unknown."""
    if not code:
        return None
    code = code.strip().lower().replace("-", "_")
    base = code.split("_", 1)[0]
    return base if base in LANGUAGES else None


def system_language() -> str:
    """The system locale's language when it is one we have, else English."""
    return "zh" if QLocale.system().language() == QLocale.Language.Chinese else "en"


def initial_language(settings: QSettings | None, override: str | None = None) -> str:
    """`--lang` first, then the language chosen last time (settings), then the system locale."""
    stored = settings.value(SETTING) if settings is not None else None
    return normalise(override) or normalise(stored if isinstance(stored, str) else None) or system_language()


def _catalogue_path(name: str) -> str:
    return str(resources.files("tfdebug.resources").joinpath("i18n", f"{name}.qm"))


def set_language(code: str) -> bool:
    """Speak `code` from now on: remove our translators, install that language's ones.

    Qt then sends LanguageChange to every widget, which sets its texts again. Returns False
    (and stays in English) when the catalogue cannot be loaded.
    """
    global _language
    app = QCoreApplication.instance()
    code = normalise(code) or "en"
    if app is None:
        return False
    if code == _language:
        return True
    for translator in _installed:
        app.removeTranslator(translator)
    _installed.clear()
    ok = True
    if code in CATALOGUES:
        ours = QTranslator(app)
        ok = ours.load(_catalogue_path(CATALOGUES[code]))
        if ok:
            qt = QTranslator(app)
            if qt.load(QT_CATALOGUES[code], QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)):
                _installed.append(qt)
            _installed.append(ours)  # installed last: asked first
    for translator in _installed:
        app.installTranslator(translator)
    _language = code if ok else "en"
    QLocale.setDefault(QLocale(QLocale.Language.Chinese,
                               QLocale.Country.China) if _language == "zh" else QLocale(QLocale.Language.English))
    return ok


class _LanguageWatcher(QObject):
    """Calls back when a LanguageChange reaches the object it watches."""

    def __init__(self, target: QObject, callback):
        super().__init__(target)
        self._callback = callback
        target.installEventFilter(self)

    def eventFilter(self, watched, event) -> bool:
        if event.type() == QEvent.Type.LanguageChange:
            self._callback()
        return False


def retranslate_with(target: QObject, callback) -> None:
    """Call `callback` now and again whenever the language changes: for widgets that are not
    subclasses of ours (a QMenu built by a function), where `changeEvent` cannot be overridden."""
    callback()
    _LanguageWatcher(target, callback)


def cjk_family() -> str | None:
    """The first installed font family of CJK_FAMILIES, or None (then Chinese may show as boxes)."""
    installed = set(QFontDatabase.families())
    return next((f for f in CJK_FAMILIES if f in installed), None)


def apply_cjk_font(app: QApplication) -> str | None:
    """Give the application font a CJK fallback family, so every widget and plot (tick labels,
    tables, histograms) draws Chinese with real glyphs. Returns the family used, or None."""
    family = cjk_family()
    if family is None:
        return None
    font: QFont = app.font()
    families = [f for f in font.families() or [font.family()] if f != family]
    font.setFamilies(families + [family])
    app.setFont(font)
    return family


def language_menu(parent: QWidget, settings: QSettings) -> QMenu:
    """View ▸ Language: one checkable item per language; choosing one switches now and is remembered."""
    menu = QMenu(parent)
    menu.setObjectName("menu-language")
    group = QActionGroup(menu)
    group.setExclusive(True)
    for code, name in LANGUAGES.items():
        item = QAction(name, menu)
        item.setObjectName(f"language-{code}")
        item.setCheckable(True)
        item.setChecked(code == _language)
        item.triggered.connect(lambda checked=False, c=code: _choose(c, settings))
        group.addAction(item)
        menu.addAction(item)
    menu.aboutToShow.connect(lambda: [a.setChecked(a.objectName() == f"language-{_language}")
                                      for a in menu.actions()])
    return menu


def _choose(code: str, settings: QSettings) -> None:
    if set_language(code):
        settings.setValue(SETTING, code)


def kind_title(kind: str) -> str:
    """The readable, translated name of a stage kind ("Softmax" / "Softmax 归一化")."""
    from tfdebug.core.stages import kind_title as english

    return translate("kinds", english(kind))


# Words that models' formulas hold besides symbols ("P = softmax(·, over keys)"), longest first.
FORMULA_WORDS = (QT_TRANSLATE_NOOP("formulas", "a row with every key masked is 0"),
                 QT_TRANSLATE_NOOP("formulas", "over keys"),
                 QT_TRANSLATE_NOOP("formulas", "this step's"),
                 QT_TRANSLATE_NOOP("formulas", "cached"))


def formula_text(formula: str) -> str:
    """A stage's formula with its words translated: the mask note "… + M  (M: −∞ above the diagonal)"
    and the words of FORMULA_WORDS ("softmax(·, over keys)")."""
    text = re.sub(r"\(M: ([^)]*)\)", lambda m: f"(M: {translate('formulas', m.group(1))})", formula)
    for words in FORMULA_WORDS:
        if words in text:
            text = text.replace(words, translate("formulas", words))
    return text


def axis_title(name: str) -> str:
    """An axis name ("query", "head") as the window shows it; unknown names ("0", "dim") unchanged."""
    return translate("axes", name)


def title(text: str) -> str:
    """A layer, block, site or column title from core or an adapter, translated when the catalogue
    has it; "Encoder layer 3" is translated as its title and number (core builds it as "{title} {n}")."""
    translated = translate("titles", text)
    if translated != text:
        return translated
    head, _, number = text.rpartition(" ")
    if head and number.isdigit():
        return translate("titles", "{title} {n}").format(title=translate("titles", head), n=number)
    return text


QT_TRANSLATE_NOOP("titles", "Model")  # the column of a pass without layered stacks (core.layout)
QT_TRANSLATE_NOOP("titles", "Step")   # a generation step's group in the Stages tree: "Step 3" (core.layout)


def breakpoint_text(bp) -> str:
    """What a Breakpoint stops on, in the window's language (English: the core's own words)."""
    if _language == "en":
        return bp.describe()
    if bp.by == "stage":
        return translate("breakpoints", "stage {name}").format(name=bp.value)
    if bp.by == "kind":
        return translate("breakpoints", "every {kind}").format(kind=kind_title(bp.value))
    if bp.value == "nan":
        return translate("breakpoints", "contains NaN")
    if bp.value == "inf":
        return translate("breakpoints", "contains ±Inf outside masked cells")
    if bp.value == "diverges":
        return translate("breakpoints", "diverges from the reference pass (atol {atol}, rtol {rtol})").format(
            atol=f"{bp.threshold:g}", rtol=f"{bp.rtol:g}")
    return translate("breakpoints", "max |x| > {threshold}").format(threshold=f"{bp.threshold:g}")


def verification_text(verification) -> str:
    """How a tapped model's output compares with the unmodified model's (English: the adapter's words)."""
    if _language == "en":
        return verification.describe()
    problem = getattr(verification, "input_problem", "")
    if problem:  # the input is not what transformers' tokenizer makes: said before any number
        return translate("verification", "MISMATCH: the input is not what {against} makes. {problem}").format(
            against=verification.inputs_against, problem=phrase_text(problem))
    if getattr(verification, "scope", "") == "attention":  # checked in the pass (`--verify attention`)
        if verification.ok:
            return translate("verification", "verified in the pass: every layer's attention equals the model's own "
                                              "eager function on the same query, key and value, bit for bit ({count} "
                                              "stages); the logits and layer inputs were not compared").format(
                count=len(verification.checked))
        return translate("verification", "MISMATCH in the pass: {stage} differs from the model's own eager function "
                                          "on the same inputs (|Δ| = {diff})").format(
            stage=verification.first_mismatch, diff=f"{verification.mismatch_diff:.1e}")
    rule = getattr(verification, "tolerance_rule", "")
    if rule:
        template = (translate("verification", "verified: max |Δ| = {diff} vs unmodified model (tolerance: {tol})")
                    if verification.ok else
                    translate("verification", "MISMATCH: max |Δ| = {diff} vs unmodified model (tolerance: {tol})"))
        tol = phrase_text(rule)
    else:
        template = (translate("verification", "verified: max |Δ| = {diff} vs unmodified model (tolerance {tol})")
                    if verification.ok else
                    translate("verification", "MISMATCH: max |Δ| = {diff} vs unmodified model (tolerance {tol})"))
        tol = f"{verification.tolerance:.0e}"
    line = template.format(diff=f"{verification.max_abs_diff:.1e}", tol=tol)
    cause = getattr(verification, "cause", "")  # a Phrase when the adapter knows why they differ
    if cause and not verification.ok:
        return translate("verification", "{line}. {cause}").format(line=line, cause=phrase_text(cause))
    return line


def _input_label(text: str) -> str:
    """An input label an error names ("source sentence"), translated; any other text unchanged."""
    for candidate in (text, text[:1].upper() + text[1:]):
        translated = translate("inputs", candidate)
        if translated != candidate:
            return translated
    return text


def error_text(exc) -> str:
    """The sentence of a TfdebugError in the window's language.

    Errors raised with a stable `id` carry their English template and its arguments: the
    template is looked up in the catalogue (context "errors", disambiguated by the id) and
    filled in. Errors without an id keep their English sentence.
    """
    return shown_text(error_phrase(exc))


def error_phrase(exc) -> str:
    """A TfdebugError as a Phrase (context "errors"): what a message keeps to say it again in another
    language, without holding the exception (and its traceback's frames). Its English sentence when
    the error has no id."""
    phrase = getattr(exc, "phrase", None)
    return phrase() if callable(phrase) else exc.message


class Said(str):
    """A sentence of the window as said now (the str value) and how to say it again (`render`, a function
    that calls tr()): a message keeps it to follow View ▸ Language. Make one with `said(lambda: …)`."""

    render: Callable[[], str]

    def __new__(cls, render: Callable[[], str]) -> "Said":
        self = super().__new__(cls, render())
        self.render = render
        return self


def said(render: Callable[[], str]) -> Said:
    """`render()` now, remembering `render` to say it again in another language:
    `ctl.inform(said(lambda: self.tr("Exported to {path}").format(path=path)))`."""
    return Said(render)


def shown_text(content) -> str:
    """What a message says, in the current language: `content` is a Said (said again), a Phrase of
    the Qt-free layers (translated by its id) or plain text (data, as it is)."""
    return content.render() if isinstance(content, Said) else phrase_text(content)


def phrase_text(value) -> str:
    """A Phrase or Choices of the Qt-free layers (core.phrases) in the window's language, the values
    inside it translated too; any other value as `str` gives it (names, paths, numbers)."""
    if _language == "en" or not isinstance(value, (Phrase, Choices)):
        return str(value)
    if isinstance(value, Choices):
        items = value.items
        if len(items) < 2:
            return str(value)
        return (translate("phrases", ", ").join(items[:-1]) + translate("phrases", " or ") + items[-1])
    return _filled(translate(value.context, value.template, value.id), value.params, str(value))


def _filled(template: str, params: dict, english: str) -> str:
    # An input's label ("source sentence") is a word of the window: the catalogue has it.
    shown = {k: _input_label(v) if k == "field" and type(v) is str
             else phrase_text(v) if isinstance(v, (Phrase, Choices)) else v for k, v in params.items()}
    try:
        return template.format(**shown)
    except (KeyError, IndexError, ValueError):  # a translation with a broken placeholder: English is right
        return english


QT_TRANSLATE_NOOP("phrases", ", ")     # between the items of a list of choices but the last two
QT_TRANSLATE_NOOP("phrases", " or ")   # between the last two
