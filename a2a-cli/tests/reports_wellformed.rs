//! `a2a audit --format junit|html` stays a well-formed document whatever an agent writes in its
//! card: characters XML 1.0 cannot carry (C0 controls other than tab, LF and CR, U+FFFE, U+FFFF)
//! and those HTML forbids (C1 controls, DEL, noncharacters) are replaced, not copied. The XML is
//! read by a strict hand check of XML 1.0 well-formedness (no XML parser is among the workspace's
//! dependencies).

mod common;

use std::collections::HashSet;

use a2a_testkit::{Capabilities, ScriptedAgent};
use common::{a2a, stderr, stdout};

/// A card name with every kind of character a report cannot carry, between ordinary text.
const HOSTILE_NAME: &str =
    "weather\u{FFFE}\u{FFFF}\u{1}\u{B}\u{1B}[2J\u{7F}\u{85}\u{FDD0}\u{1FFFF} <bot> & \"co\"";

/// XML 1.0's `Char` production.
fn is_xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
}

fn is_name_char(c: char, first: bool) -> bool {
    c.is_alphabetic() || c == '_' || c == ':' || (!first && (c.is_ascii_digit() || c == '-' || c == '.'))
}

/// Checks an entity or character reference starting at `&`; returns the bytes it takes.
fn reference(rest: &str, at: usize) -> Result<usize, String> {
    let end = rest.find(';').ok_or_else(|| format!("unterminated reference at byte {at}"))?;
    let body = &rest[1..end];
    let ok = if let Some(hex) = body.strip_prefix("#x") {
        u32::from_str_radix(hex, 16).ok().and_then(char::from_u32).is_some_and(is_xml_char)
    } else if let Some(dec) = body.strip_prefix('#') {
        dec.parse::<u32>().ok().and_then(char::from_u32).is_some_and(is_xml_char)
    } else {
        matches!(body, "amp" | "lt" | "gt" | "quot" | "apos")
    };
    if ok { Ok(end + 1) } else { Err(format!("bad reference &{body}; at byte {at}")) }
}

/// A strict check of XML 1.0 well-formedness for documents without a DTD: every character is an
/// XML `Char`; tags nest and close; one root; attributes quoted, unique, with no `<` and only the
/// predefined or character references; text with no `<` outside markup and no `]]>`.
fn well_formed(doc: &str) -> Result<(), String> {
    if let Some((at, c)) = doc.char_indices().find(|(_, c)| !is_xml_char(*c)) {
        return Err(format!("character U+{:04X} at byte {at} is not an XML Char", c as u32));
    }
    let mut open: Vec<&str> = Vec::new();
    let mut roots = 0;
    let mut at = 0;
    while at < doc.len() {
        let rest = &doc[at..];
        if rest.starts_with("<?") {
            let end = rest.find("?>").ok_or(format!("unterminated processing instruction at byte {at}"))?;
            at += end + 2;
        } else if let Some(comment) = rest.strip_prefix("<!--") {
            let end = comment.find("-->").ok_or(format!("unterminated comment at byte {at}"))?;
            at += 4 + end + 3;
        } else if let Some(close) = rest.strip_prefix("</") {
            let end = close.find('>').ok_or(format!("unterminated end tag at byte {at}"))?;
            let name = close[..end].trim_end();
            match open.pop() {
                Some(top) if top == name => {}
                other => return Err(format!("</{name}> at byte {at} closes {other:?}")),
            }
            at += 2 + end + 1;
        } else if let Some(tag) = rest.strip_prefix('<') {
            let name_len = tag.find(|c: char| !is_name_char(c, false)).unwrap_or(tag.len());
            let name = &tag[..name_len];
            if name.is_empty() || !name.starts_with(|c| is_name_char(c, true)) {
                return Err(format!("bad element name at byte {at}"));
            }
            if open.is_empty() {
                roots += 1;
            }
            let mut i = 1 + name_len;
            let mut seen = HashSet::new();
            loop {
                let ws = doc[at + i..].len() - doc[at + i..].trim_start().len();
                i += ws;
                let here = &doc[at + i..];
                if here.starts_with("/>") {
                    i += 2;
                    break;
                }
                if here.starts_with('>') {
                    i += 1;
                    open.push(name);
                    break;
                }
                if ws == 0 {
                    return Err(format!("no space before an attribute in <{name}> at byte {}", at + i));
                }
                let attr_len = here.find(|c: char| !is_name_char(c, false)).unwrap_or(here.len());
                let attr = &here[..attr_len];
                if attr.is_empty() || !seen.insert(attr) {
                    return Err(format!("bad or repeated attribute {attr:?} in <{name}> at byte {}", at + i));
                }
                let after = here[attr_len..].trim_start();
                let after =
                    after.strip_prefix('=').ok_or(format!("attribute {attr} without = in <{name}>"))?;
                let after = after.trim_start();
                let quote = after.chars().next().filter(|q| matches!(q, '"' | '\''));
                let quote = quote.ok_or(format!("attribute {attr} in <{name}> is not quoted"))?;
                let value_len =
                    after[1..].find(quote).ok_or(format!("attribute {attr} in <{name}> never ends"))?;
                let value = &after[1..1 + value_len];
                let value_at = doc.len() - after.len() + 1;
                check_text(value, value_at, true)?;
                i = value_at + value_len + 1 - at;
            }
            at += i;
        } else {
            let end = rest.find('<').unwrap_or(rest.len());
            let text = &rest[..end];
            if open.is_empty() && !text.trim().is_empty() {
                return Err(format!("text outside the root element at byte {at}"));
            }
            check_text(text, at, false)?;
            at += end;
        }
    }
    if let Some(unclosed) = open.last() {
        return Err(format!("<{unclosed}> is never closed"));
    }
    if roots != 1 {
        return Err(format!("{roots} root elements"));
    }
    Ok(())
}

fn check_text(text: &str, at: usize, attribute: bool) -> Result<(), String> {
    if attribute && text.contains('<') {
        return Err(format!("'<' in an attribute value at byte {at}"));
    }
    if !attribute && text.contains("]]>") {
        return Err(format!("']]>' in text at byte {at}"));
    }
    let mut i = 0;
    while let Some(amp) = text[i..].find('&') {
        i += amp;
        i += reference(&text[i..], at + i)?;
    }
    Ok(())
}

#[test]
fn the_strict_check_refuses_what_xml_refuses() {
    assert!(well_formed("<?xml version=\"1.0\"?>\n<a x=\"1\" y='&amp;'><b/>t &#x41;</a>\n").is_ok());
    for bad in [
        "<a>\u{FFFE}</a>",
        "<a>\u{1}</a>",
        "<a x=\"\u{FFFF}\"/>",
        "<a>&#xFFFE;</a>",
        "<a><b></a>",
        "<a>&nbsp;</a>",
        "<a x=\"1\" x=\"2\"/>",
        "<a>x < y</a>",
        "<a/><b/>",
        "<a>",
    ] {
        assert!(well_formed(bad).is_err(), "{bad:?} passed the check");
    }
}

#[tokio::test]
async fn junit_output_is_well_formed_xml_for_any_card_name() {
    let agent = ScriptedAgent::builder()
        .name(HOSTILE_NAME)
        .capabilities(Capabilities::none().with_streaming())
        .spawn()
        .await
        .unwrap();
    let output = a2a(&["audit", "--format", "junit", &agent.base_url()]).await;
    let xml = stdout(&output);
    assert!(xml.contains("<testsuites"), "no report: {}", stderr(&output));
    if let Err(fault) = well_formed(&xml) {
        panic!("the JUnit report is not well-formed XML: {fault}\n{xml:?}");
    }
    assert!(
        xml.contains("weather\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}[2J"),
        "the name is kept, its unwritable characters replaced: {xml:?}"
    );
    assert!(xml.contains("&lt;bot&gt; &amp; &quot;co&quot;"), "{xml:?}");
}

#[tokio::test]
async fn the_html_report_carries_no_character_html_forbids_for_any_card_name() {
    let agent = ScriptedAgent::builder()
        .name(HOSTILE_NAME)
        .capabilities(Capabilities::none().with_streaming())
        .spawn()
        .await
        .unwrap();
    let output = a2a(&["audit", "--format", "html", &agent.base_url()]).await;
    let page = stdout(&output);
    assert!(page.contains("<h1>a2a audit</h1>"), "no report: {}", stderr(&output));
    let forbidden = |c: char| {
        let code = c as u32;
        (c.is_control() && !matches!(c, '\t' | '\n' | '\r' | '\u{C}'))
            || (0xFDD0..=0xFDEF).contains(&code)
            || code & 0xFFFE == 0xFFFE
    };
    if let Some((at, c)) = page.char_indices().find(|(_, c)| forbidden(*c)) {
        panic!("U+{:04X} at byte {at} of the page: {page:?}", c as u32);
    }
    assert!(page.contains("weather\u{FFFD}\u{FFFD}"), "{page:?}");
    assert!(page.contains("&lt;bot&gt;"), "{page:?}");
}
