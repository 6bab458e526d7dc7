/// What a failed check says about a JWT that is not App Store signed data: one from another
/// issuer (HMAC, RSA, another curve, ES256 with a key of its own) or not signed at all.
///
/// App Store data is always ES256 with its certificate chain in `x5c`; these phrases name
/// what the token is instead, with its `kid` and `iss` when it has them, excerpted.
enum ForeignJWT {
    /// What App Store signed data is, after "not App Store signed data".
    static let appStoreData = "App Store signed data, which is ES256 with an x5c certificate chain"

    /// The `alg` check's detail for an `alg` other than ES256.
    ///
    /// - Returns: a phrase naming the algorithm's family ("an HMAC-signed JWT (HS256, kid "k1")"),
    ///   or for an `alg` no issuer uses (a near miss like "es256"), the expected value.
    static func algorithmDetail(_ alg: String, header: [String: JSONValue], payload: [String: JSONValue]) -> String {
        guard let family = family(of: alg) else {
            return "alg is \"\(Excerpt.of(alg))\"; App Store data is signed with ES256 only"
        }
        let named = alg == "none" ? "alg \"none\"" : alg
        let details = ([named] + identifiers(header: header, payload: payload)).joined(separator: ", ")
        return "\(family) (\(details)): not \(appStoreData)"
    }

    /// The `x5c` check's detail for an ES256 token without `x5c`.
    static func withoutChainDetail(header: [String: JSONValue], payload: [String: JSONValue]) -> String {
        let identity = identifiers(header: header, payload: payload)
        return "ES256 without x5c\(identity.isEmpty ? "" : " (\(identity.joined(separator: ", ")))"): "
            + "signed with a key of its own "
            + "(a developer-signed token, or another issuer's), not App Store signed data; "
            + "App Store data carries its certificate chain in x5c"
    }

    /// The `signature` check's detail for a token whose signature segment is empty
    /// (`header.payload.`, as an `alg: none` JWT is written).
    static func unsignedDetail(alg: JSONValue?) -> String {
        let named =
            switch alg {
            case .string(let alg)?: "alg \"\(Excerpt.of(alg))\" with"
            case let other?: "alg \(other.kindDescription) with"
            case nil: "no alg and"
            }
        return "\(named) an empty signature: not signed; App Store data is signed ES256"
    }

    /// These phrases as check details: the values kept, the words made when the detail is read.
    enum Detail: CheckDetail {
        case algorithm(String, header: [String: JSONValue], payload: [String: JSONValue])
        case withoutChain(header: [String: JSONValue], payload: [String: JSONValue])
        case unsigned(alg: JSONValue?)

        var text: String {
            switch self {
            case .algorithm(let alg, let header, let payload): algorithmDetail(alg, header: header, payload: payload)
            case .withoutChain(let header, let payload): withoutChainDetail(header: header, payload: payload)
            case .unsigned(let alg): unsignedDetail(alg: alg)
            }
        }
    }

    /// "an HMAC-signed JWT" and the like for the JOSE algorithms other issuers sign with; nil
    /// for anything else. Only the registered spellings (RFC 7518 §3.1, RFC 8037's EdDSA and the
    /// fully-specified Ed25519 and Ed448): App Store data is ES256 exactly, so "es256" is a
    /// malformed header, not another issuer's token.
    static func family(of alg: String) -> String? {
        switch alg {
        case "none": "an unsigned JWT"
        case "HS256", "HS384", "HS512": "an HMAC-signed JWT"
        case "RS256", "RS384", "RS512", "PS256", "PS384", "PS512": "an RSA-signed JWT"
        case "ES384", "ES512", "ES256K": "an ECDSA-signed JWT on another curve"
        case "EdDSA", "Ed25519", "Ed448": "an EdDSA-signed JWT"
        default: nil
        }
    }

    /// `kid "…"` and `iss "…"` for whichever of the two the token carries as strings, each
    /// excerpted to 40 characters.
    static func identifiers(header: [String: JSONValue], payload: [String: JSONValue]) -> [String] {
        var parts: [String] = []
        if case .string(let kid)? = header["kid"] { parts.append("kid \"\(Excerpt.of(kid, limit: 40))\"") }
        if case .string(let issuer)? = payload["iss"] { parts.append("iss \"\(Excerpt.of(issuer, limit: 40))\"") }
        return parts
    }
}
