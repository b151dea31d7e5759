//! The little DER and PEM a trust store reads: a SubjectPublicKeyInfo's algorithm, an RSA key's
//! modulus size, a PKCS#1 key built from JWK components, one PEM block.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;

use super::algorithm::KeyKind;

/// DER of the PKCS#1 `RSAPublicKey` holding modulus `n` and exponent `e` (big-endian bytes).
pub(super) fn rsa_public_key_der(n: &[u8], e: &[u8]) -> Vec<u8> {
    let mut body = der_unsigned_integer(n);
    body.extend(der_unsigned_integer(e));
    der_tagged(0x30, &body)
}

fn der_unsigned_integer(bytes: &[u8]) -> Vec<u8> {
    let trimmed = match bytes.iter().position(|b| *b != 0) {
        Some(first) => &bytes[first..],
        None => &[0][..],
    };
    let mut content = Vec::with_capacity(trimmed.len() + 1);
    if trimmed.first().is_some_and(|b| b & 0x80 != 0) {
        content.push(0);
    }
    content.extend_from_slice(trimmed);
    der_tagged(0x02, &content)
}

fn der_tagged(tag: u8, content: &[u8]) -> Vec<u8> {
    let mut out = vec![tag];
    let len = content.len();
    if len < 0x80 {
        out.push(len as u8);
    } else {
        let bytes: Vec<u8> = len.to_be_bytes().into_iter().skip_while(|b| *b == 0).collect();
        out.push(0x80 | bytes.len() as u8);
        out.extend(bytes);
    }
    out.extend_from_slice(content);
    out
}

/// The bit length of the modulus of an RSA key in PKCS#1 `RSAPublicKey` or SPKI DER.
pub(super) fn rsa_modulus_bits(der: &[u8]) -> Option<usize> {
    let (0x30, outer, _) = der_element(der)? else { return None };
    let pkcs1 = match der_element(outer)? {
        (0x02, _, _) => outer,
        (0x30, _, rest) => {
            let (0x03, bits, _) = der_element(rest)? else { return None };
            let (0x30, pkcs1, _) = der_element(bits.get(1..)?)? else { return None };
            pkcs1
        }
        _ => return None,
    };
    let (0x02, modulus, _) = der_element(pkcs1)? else { return None };
    let first = modulus.iter().position(|b| *b != 0)?;
    let leading = modulus[first].leading_zeros() as usize;
    Some((modulus.len() - first) * 8 - leading)
}

/// One DER element at the start of `input`: (tag, content, rest).
fn der_element(input: &[u8]) -> Option<(u8, &[u8], &[u8])> {
    let (&tag, rest) = input.split_first()?;
    let (&first, rest) = rest.split_first()?;
    let (len, rest) = if first < 0x80 {
        (usize::from(first), rest)
    } else {
        let count = usize::from(first & 0x7f);
        if count == 0 || count > 4 || rest.len() < count {
            return None;
        }
        let len = rest[..count].iter().fold(0usize, |acc, b| (acc << 8) | usize::from(*b));
        (len, &rest[count..])
    };
    (rest.len() >= len).then(|| (tag, &rest[..len], &rest[len..]))
}

const OID_RSA: &[u8] = &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01];
const OID_EC: &[u8] = &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01];
const OID_P256: &[u8] = &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07];
const OID_P384: &[u8] = &[0x2b, 0x81, 0x04, 0x00, 0x22];
const OID_P521: &[u8] = &[0x2b, 0x81, 0x04, 0x00, 0x23];
const OID_ED25519: &[u8] = &[0x2b, 0x65, 0x70];

/// The kind of key a SubjectPublicKeyInfo holds, from its algorithm identifier.
pub(super) fn spki_kind(der: &[u8]) -> Option<KeyKind> {
    let (0x30, spki, _) = der_element(der)? else { return None };
    let (0x30, algorithm, _) = der_element(spki)? else { return None };
    let (0x06, oid, params) = der_element(algorithm)? else { return None };
    match oid {
        OID_RSA => Some(KeyKind::Rsa),
        OID_ED25519 => Some(KeyKind::Ed25519),
        OID_EC => match der_element(params)? {
            (0x06, OID_P256, _) => Some(KeyKind::EcP256),
            (0x06, OID_P384, _) => Some(KeyKind::EcP384),
            (0x06, OID_P521, _) => Some(KeyKind::EcP521),
            _ => None,
        },
        _ => None,
    }
}

/// The label and DER of the single PEM block in `text`.
pub(super) fn pem_block(text: &str) -> Option<(String, Vec<u8>)> {
    let text = text.trim();
    let first = text.lines().next()?.trim();
    let label = first.strip_prefix("-----BEGIN ")?.strip_suffix("-----")?.to_owned();
    let end = format!("-----END {label}-----");
    let body: String = text
        .lines()
        .skip(1)
        .take_while(|line| line.trim() != end)
        .flat_map(|line| line.chars().filter(|c| !c.is_whitespace()))
        .collect();
    if !text.trim_end().ends_with(&end) {
        return None;
    }
    STANDARD.decode(body).ok().map(|der| (label, der))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rsa_der_from_jwk_components_has_minimal_positive_integers() {
        assert_eq!(
            rsa_public_key_der(&[0x00, 0x80], &[0x01, 0x00, 0x01]),
            [0x30, 0x09, 0x02, 0x02, 0x00, 0x80, 0x02, 0x03, 0x01, 0x00, 0x01]
        );
    }

    #[test]
    fn a_pem_block_without_its_end_line_is_not_a_block() {
        assert!(pem_block("-----BEGIN PUBLIC KEY-----\nAAAA\n").is_none());
        assert_eq!(
            pem_block("-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n"),
            Some(("PUBLIC KEY".to_owned(), vec![0, 0, 0]))
        );
    }
}
