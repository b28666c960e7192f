"""A Word equation (OMML: Word's equation editor) is read as its text in about Word's linear form; it was left out,
so a formula in a student's homework or essay could not be found, and a paragraph of an equation alone was none."""
from __future__ import annotations

import io

import docx
from docx.oxml import parse_xml

from ingest.parse import parse_file

MNS = 'xmlns:m="http://schemas.openxmlformats.org/officeDocument/2006/math"'


def run(text: str) -> str:
    return f"<m:r><m:t>{text}</m:t></m:r>"


def brackets(text: str, begin: str | None = None) -> str:
    setting = f'<m:dPr><m:begChr m:val="{begin}"/><m:endChr m:val="]"/></m:dPr>' if begin else ""
    return f"<m:d>{setting}<m:e>{run(text)}</m:e></m:d>"


BAYES = (f"<m:oMath {MNS}>{run('P')}{brackets('A|B')}{run('=')}<m:f><m:num>{run('P')}{brackets('B|A')}{run('P')}"
         f"{brackets('A')}</m:num><m:den>{run('P')}{brackets('B')}</m:den></m:f></m:oMath>")
FORMULA = (f'<m:oMathPara {MNS}><m:oMath><m:nary><m:naryPr><m:chr m:val="∑"/></m:naryPr><m:sub>{run("i=1")}</m:sub>'
           f'<m:sup>{run("n")}</m:sup><m:e><m:sSub><m:e>{run("x")}</m:e><m:sub>{run("i")}</m:sub></m:sSub></m:e>'
           f'</m:nary>{run("=")}<m:rad><m:radPr><m:degHide m:val="1"/></m:radPr><m:deg/><m:e><m:sSup><m:e>{run("b")}'
           f'</m:e><m:sup>{run("2")}</m:sup></m:sSup>{run("-4ac")}</m:e></m:rad>{run("+")}{brackets("0,1", "[")}'
           f'<m:m><m:mr><m:e>{run("a")}</m:e><m:e>{run("b")}</m:e></m:mr><m:mr><m:e>{run("c")}</m:e><m:e>{run("d")}'
           f'</m:e></m:mr></m:m><m:func><m:fName>{run("sin")}</m:fName><m:e>{run("θ")}</m:e></m:func></m:oMath>'
           '</m:oMathPara>')


def test_an_equation_in_a_word_document_is_read_as_its_text_in_linear_form():
    document = docx.Document()
    document.add_heading("Homework 3", 1)
    paragraph = document.add_paragraph("By Bayes' theorem, ")
    paragraph._p.append(parse_xml(BAYES))
    paragraph.add_run(" for any events A and B.")
    document.add_paragraph()._p.append(parse_xml(FORMULA))  # a paragraph of an equation alone
    saved = io.BytesIO()
    document.save(saved)
    [section] = parse_file("homework.docx", saved.getvalue()).sections
    assert section.text.split("\n") == [
        "Homework 3",
        "By Bayes' theorem, P(A|B)=(P(B|A)P(A))/(P(B)) for any events A and B.",
        "∑_(i=1)^n x_i=√(b^2-4ac)+[0,1][a b; c d]sin θ"]


def test_an_equation_on_a_powerpoint_slide_is_read_too():
    from ingest.slides import slides_text
    from tests.test_slides import PNS, pptx, shape, slide
    a14 = 'xmlns:a14="http://schemas.microsoft.com/office/drawing/2010/main"'
    mc = 'xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"'
    body = (f'<p:txBody {PNS}><a:bodyPr/><a:p><a:r><a:t>Bayes: </a:t></a:r><a14:m {a14}>'
            f'<m:oMathPara {MNS}>{BAYES.replace(f" {MNS}", "")}</m:oMathPara></a14:m></a:p></p:txBody>')
    equation = (f'<mc:AlternateContent {mc}><mc:Choice Requires="a14"><p:sp {PNS}><p:nvSpPr><p:cNvPr id="3" name="e"/>'
                f'<p:cNvSpPr/><p:nvPr/></p:nvSpPr><p:spPr/>{body}</p:sp></mc:Choice><mc:Fallback><p:sp {PNS}><p:nvSpPr>'
                '<p:cNvPr id="3" name="e"/><p:cNvSpPr/><p:nvPr/></p:nvSpPr><p:spPr/></p:sp></mc:Fallback>'
                '</mc:AlternateContent>')
    read = slides_text(pptx([(slide([shape(["Bayes' rule"], "title"), equation]), None)]), "bayes.pptx")
    assert read.lines == ["Slide 1: Bayes' rule", "Bayes: P(A|B)=(P(B|A)P(A))/(P(B))"], read.lines
