/// `signature`: the signature over `header.payload` verifies with the key the trust model
/// supplies. An empty signature segment is recorded first (`Unsigned`), so such a token
/// reads as not signed.
struct SignaturePolicy: VerifierPolicy, TokenStep {
    static let name = Check.Name("signature", failing: .invalidSignature)
    static let payloadMembers: [String] = []

    static let verified = "ES256 signature over header.payload verified with the leaf's EC P-256 key"

    /// The step before `alg`: an empty signature segment (`header.payload.`, an `alg: none`
    /// JWT) decides the verdict.
    struct Unsigned: TokenStep {
        static let policies: [any VerifierPolicy.Type] = [SignaturePolicy.self]

        func decide(_ token: borrowing TokenSubject, _ report: borrowing Report) -> StepOutcome {
            guard token.jws.signature.isEmpty else { return .none }
            return .check(Check(name, passed: false, ForeignJWT.Detail.unsigned(alg: token.jws.header.object["alg"])))
        }
    }

    func decide(_ token: borrowing TokenSubject, _ report: borrowing Report) -> StepOutcome {
        // An empty signature was recorded first, by Unsigned.
        guard case .string("ES256")? = token.jws.header.object["alg"], !token.jws.signature.isEmpty else {
            return .none
        }
        guard let trust = token.model else {
            if let (kid, given) = token.trust.otherKeys {
                return .check(Check(Self.name, passed: false, OtherKeys(kid: kid, given: given)))
            } else if token.trust.key == nil {
                return .note("signature not checked: no usable leaf certificate")
            }
            return .none
        }
        guard let key = trust.signingKey(chainEntry: report.chainEntry, cache: token.cache) else {
            return .check(Check(Self.name, passed: false, "the leaf's public key cannot be decoded"))
        }
        let prefix = token.signingPrefix
        let digest = token.jws.withSigningInput { prefix?.digest(of: $0) ?? Digest.sha256($0) }
        let verifiedText =
            if case .developerKey(let developer) = trust {
                "ES256 signature over header.payload verified with the developer key \(developer.keyID) (\(key.summary))"
            } else {
                key.summary == "EC P-256"
                    ? Self.verified : "ES256 signature over header.payload verified with the leaf's \(key.summary) key"
            }
        if token.deferringSignature {
            // Not run yet: pending until the caller runs it (`DeferredSignature.resolve`).
            return .deferredSignature(
                key: key, digest: digest, signature: token.jws.signature, detailWhenPassed: verifiedText)
        } else if let failure = key.verifyES256(signature: token.jws.signature, digest: digest) {
            return .check(Check(Self.name, passed: false, Detail(failure: failure)))
        }
        return .check(Check(Self.name, passed: true, verifiedText))
    }

    /// A developer-signed token whose `kid` is none of the `--key`s given.
    struct OtherKeys: CheckDetail {
        let kid: String
        let given: [String]

        var text: String {
            "signed with kid \"\(Excerpt.of(kid, limit: 40))\", but the keys given are "
                + given.map { "\"\($0)\"" }.joined(separator: ", ") + ": not signed with any key given"
        }
    }

    /// Why a signature did not verify.
    struct Detail: CheckDetail {
        let failure: SignatureFailure

        var text: String { failure.description }
    }
}

extension Check.Name {
    package static let signature = SignaturePolicy.name
}
