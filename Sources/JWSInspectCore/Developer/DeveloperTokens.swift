package import FoundationEssentials

/// The JWS a developer signs with an App Store Connect In-App Purchase key, built as Apple
/// specifies them (header `{"alg":"ES256","kid":…,"typ":"JWT"}`, claims per kind, compact
/// serialization with unpadded base64url, ES256 signature as raw `r || s`).
package enum DeveloperToken {
    /// What a developer-signed JWS is for, and the `aud` that says so.
    package enum Kind: String, CaseIterable, Sendable {
        /// The App Store Server API bearer token.
        case apiToken = "api-token"
        /// A promotional offer signature (V2, for `Product.PurchaseOption.promotionalOffer`).
        case promotionalOffer = "promotional-offer"
        /// An introductory offer eligibility token.
        case introductoryOfferEligibility = "introductory-offer-eligibility"
        /// An Advanced Commerce API in-app request.
        case advancedCommerce = "advanced-commerce"

        /// The `aud` claim of this kind.
        package var audience: String {
            switch self {
            case .apiToken: "appstoreconnect-v1"
            case .promotionalOffer: "promotional-offer"
            case .introductoryOfferEligibility: "introductory-offer-eligibility"
            case .advancedCommerce: "advanced-commerce-api"
            }
        }
    }

    /// The feature claims of one kind.
    package enum Feature: Sendable {
        /// `exp` = `iat` + lifetime (seconds); at most `maximumLifetime`.
        case apiToken(lifetime: Int64)
        case promotionalOffer(productID: String, offerID: String, transactionID: String?)
        case introductoryOfferEligibility(productID: String, allowIntroductoryOffer: Bool, transactionID: String)
        /// The request's JSON text (an object), carried as standard base64 in `request`.
        case advancedCommerce(requestJSON: [UInt8])

        package var kind: Kind {
            switch self {
            case .apiToken: .apiToken
            case .promotionalOffer: .promotionalOffer
            case .introductoryOfferEligibility: .introductoryOfferEligibility
            case .advancedCommerce: .advancedCommerce
            }
        }
    }

    /// Apple refuses API tokens that expire more than 60 minutes after `iat`.
    package static let maximumLifetime: Int64 = 3600
    /// The lifetime Apple's libraries give an API token: 5 minutes.
    package static let defaultLifetime: Int64 = 300

    /// A claim's value.
    package enum Value: Sendable, Equatable {
        case string(String)
        case integer(Int64)
        case bool(Bool)
    }

    /// The header every developer-signed JWS carries.
    package static func header(keyID: String) -> [(String, Value)] {
        [("alg", .string("ES256")), ("kid", .string(keyID)), ("typ", .string("JWT"))]
    }

    /// The claims, in the order Apple's documentation lists them: `iss`, `iat`, (`exp`), `aud`,
    /// `bid`, then (except for API tokens) a `nonce` and the feature's claims.
    ///
    /// - Parameters:
    ///   - issuedAt: `iat`, UNIX seconds.
    ///   - nonce: the one-time UUID of offers, eligibility and Advanced Commerce requests,
    ///     written in lowercase (ignored for API tokens, which carry none).
    package static func claims(
        _ feature: Feature, issuerID: String, bundleID: String, issuedAt: Int64, nonce: UUID
    ) -> [(String, Value)] {
        var claims: [(String, Value)] = [("iss", .string(issuerID)), ("iat", .integer(issuedAt))]
        if case .apiToken(let lifetime) = feature { claims.append(("exp", .integer(issuedAt + lifetime))) }
        claims += [("aud", .string(feature.kind.audience)), ("bid", .string(bundleID))]
        if case .apiToken = feature { return claims }
        claims.append(("nonce", .string(nonce.uuidString.lowercased())))
        switch feature {
        case .apiToken:
            break
        case .promotionalOffer(let productID, let offerID, let transactionID):
            claims += [("productId", .string(productID)), ("offerIdentifier", .string(offerID))]
            if let transactionID { claims.append(("transactionId", .string(transactionID))) }
        case .introductoryOfferEligibility(let productID, let allow, let transactionID):
            claims += [
                ("productId", .string(productID)), ("allowIntroductoryOffer", .bool(allow)),
                ("transactionId", .string(transactionID)),
            ]
        case .advancedCommerce(let requestJSON):
            claims.append(("request", .string(Data(requestJSON).base64EncodedString())))
        }
        return claims
    }

    /// A signed compact JWS, with the exact JSON texts of its header and claims.
    package struct Signed: Sendable {
        package let token: String
        package let headerJSON: [UInt8]
        package let claimsJSON: [UInt8]
    }

    /// Signs `claims` under the developer header for `keyID` with `key` (ES256); throws when
    /// OpenSSL does not sign (a key that is not P-256, a failing provider).
    package static func sign(claims: [(String, Value)], keyID: String, key: PrivateKey) throws(PrivateKey.SigningError)
        -> Signed
    {
        let headerJSON = json(header(keyID: keyID))
        let claimsJSON = json(claims)
        let signingInput = Base64URL.encode(headerJSON) + "." + Base64URL.encode(claimsJSON)
        let signature = try key.signES256(Array(signingInput.utf8))
        return Signed(
            token: signingInput + "." + Base64URL.encode(signature), headerJSON: headerJSON, claimsJSON: claimsJSON)
    }

    /// Why an Advanced Commerce request is refused: nil when `bytes` are one JSON object
    /// (RFC 8259, UTF-8) that names no member twice, else why not.
    package static func requestProblem(_ bytes: [UInt8]) -> String? {
        let (problem, duplicate, _) = bytes.withUnsafeBufferPointer { JSONSyntax.strictCheck($0) }
        if let duplicate { return "names \(duplicate)" }
        if let problem { return "is not JSON: \(problem)" }
        guard (try? JSONValue.decodeObject(bytes)) != nil else { return "is JSON but not an object" }
        return nil
    }

    /// Compact JSON of ordered members (no insignificant whitespace), written by the one JSON
    /// writer (`OrderedJSON`): members as given, strings escaped by its one rule.
    package static func json(_ members: [(String, Value)]) -> [UInt8] {
        OrderedJSON.object(.init(distinct: members.map { name, value in (name, OrderedJSON(value)) })).bytes
    }
}

extension OrderedJSON {
    /// A developer token's claim value.
    init(_ value: DeveloperToken.Value) {
        switch value {
        case .string(let text): self = .string(text)
        case .integer(let number): self = .integer(number)
        case .bool(let flag): self = .bool(flag)
        }
    }
}
