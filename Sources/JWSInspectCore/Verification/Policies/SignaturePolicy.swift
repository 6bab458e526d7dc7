/// `signature`: the signature over `header.payload` verifies with the key the trust model
/// supplies. An empty signature segment is recorded first (`Unsigned`), so such a token
/// reads as not signed.
enum SignaturePolicy: VerifierPolicy, PolicyStep {
    static let name = Check.Name("signature", failing: .invalidSignature)
    static let payloadMembers: [String] = []

    static let verified = "ES256 signature over header.payload verified with the leaf's EC P-256 key"

    /// The step before `alg`: an empty signature segment (`header.payload.`, an `alg: none`
    /// JWT) decides the verdict.
    enum Unsigned: PolicyStep {
        static let policies: [any VerifierPolicy.Type] = [SignaturePolicy.self]

        static func apply(to run: inout Run) {
            guard run.jws.signature.isEmpty else { return }
            run.record(name, false, ForeignJWT.Detail.unsigned(alg: run.jws.header.object["alg"]))
        }
    }

    static func apply(to run: inout Run) {
        // An empty signature was recorded first, by Unsigned.
        guard case .string("ES256")? = run.jws.header.object["alg"], !run.jws.signature.isEmpty else { return }
        guard let trust = run.model else {
            if let (kid, given) = run.trust.otherKeys {
                run.record(name, false, OtherKeys(kid: kid, given: given))
            } else if run.trust.key == nil {
                run.notes.append("signature not checked: no usable leaf certificate")
            }
            return
        }
        guard let key = trust.signingKey(chainEntry: run.chainEntry, cache: run.cache) else {
            run.record(name, false, "the leaf's public key cannot be decoded")
            return
        }
        let prefix = run.signingPrefix
        let digest = run.jws.withSigningInput { prefix?.digest(of: $0) ?? Digest.sha256($0) }
        let verifiedText =
            if case .developerKey(let developer) = trust {
                "ES256 signature over header.payload verified with the developer key \(developer.keyID) (\(key.summary))"
            } else {
                key.summary == "EC P-256"
                    ? verified : "ES256 signature over header.payload verified with the leaf's \(key.summary) key"
            }
        if run.deferringSignature {
            // Not run yet: pending until the caller runs it (`DeferredSignature.resolve`).
            run.deferredSignature = DeferredSignature(
                key: key, digest: digest, signature: run.jws.signature, checkIndex: run.checks.count)
            run.record(.pending(name, detailWhenPassed: verifiedText))
        } else if let failure = key.verifyES256(signature: run.jws.signature, digest: digest) {
            run.record(name, false, Detail(failure: failure))
        } else {
            run.record(name, true, verifiedText)
        }
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
    public static let signature = SignaturePolicy.name
}
