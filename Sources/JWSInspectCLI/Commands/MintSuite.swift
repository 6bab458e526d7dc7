internal import AppStoreTestData
internal import FoundationEssentials
internal import JWSInspectCore

/// `jwsinspect mint suite`: valid tokens of every kind and the defective ones a correct
/// verifier must refuse, each with what Apple's algorithm decides (`expect`) and what
/// jwsinspect answers (`exitCode`, computed by verifying it here with the CA's root).
enum MintSuite {
    struct Case {
        let name: String
        let type: MintKind
        let expect: Bool
        let defect: String
        let description: String
        let token: String
    }

    /// Every case, minted with `ca` for `context`; throws when OpenSSL does not make a key, a
    /// certificate or a signature.
    static func cases(_ ca: MintedCA, context: MintContext) throws(MintError) -> [Case] {
        var failure: MintError?
        /// An ES256 signature (`r‖s`, or DER when not `raw`) by `key`; a failure is kept for the end.
        func signed(_ key: PrivateKey, _ message: [UInt8], raw: Bool = true) -> [UInt8] {
            do {
                return raw ? try key.signES256(message) : try key.signDER(message)
            } catch {
                failure = failure ?? MintError("signing failed: \(error)")
                return []
            }
        }
        /// A header with `x5c` holding `entries` (standard base64, normally certificates).
        func headerWith(_ entries: [String], alg: String = "ES256", extra: String = "") -> String {
            "{\"alg\":\"\(alg)\"\(extra),\"x5c\":[\(entries.map { "\"\($0)\"" }.joined(separator: ","))]}"
        }
        let chain = [ca.leaf.base64, ca.intermediate.base64, ca.root.base64]
        let header = headerWith(chain)
        func payload(_ kind: MintKind, _ change: (inout OrderedJSON.Object) -> Void = { _ in }) -> [UInt8] {
            var object = MintPayloads.payload(kind, context: context)
            change(&object)
            return object.jsonBytes
        }
        func jws(
            _ header: String, _ payload: [UInt8], key: PrivateKey = ca.leaf.key,
            signature: (([UInt8]) -> [UInt8])? = nil
        )
            -> String
        {
            let input = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(payload)
            let bytes = signature?(Array(input.utf8)) ?? signed(key, Array(input.utf8))
            return input + "." + Base64URL.encode(bytes)
        }
        func milliseconds(_ date: Date) -> OrderedJSON { .integer(Int64(date.timeIntervalSince1970 * 1000)) }
        func notification(nestedTransaction: String) -> [UInt8] {
            var object = MintPayloads.payload(.notification, context: context)
            for (path, kind) in MintPayloads.nestedKinds(
                notificationType: context.notificationType, subtype: context.subtype)
            {
                let token = kind == .transaction ? nestedTransaction : jws(header, payload(kind))
                try? MintPayloads.set("\(path.joined(separator: "."))=\"\(token)\"", in: &object)
            }
            return object.jsonBytes
        }
        let transaction = payload(.transaction)
        let valid = jws(header, transaction)
        func defect(_ name: String, _ description: String, _ header: String) -> Case {
            Case(
                name: name, type: .transaction, expect: false, defect: name, description: description,
                token: jws(header, transaction))
        }
        let otherCA = try MintedCA(validDays: 30, now: context.now)
        let noOIDIntermediate = try ca.chainWithIntermediateWithoutOID()
        let noOIDLeaf = try ca.leafWithoutOID()
        let otherBundle = context.bundleID + ".other"
        let otherEnvironment = context.environment == "Sandbox" ? "Production" : "Sandbox"
        var tampered = MintPayloads.payload(.transaction, context: context)
        tampered["price"] = .integer(1)
        let tamperedToken = valid.split(separator: ".").enumerated().map {
            $0.offset == 1 ? Base64URL.encode(tampered.jsonBytes) : String($0.element)
        }.joined(separator: ".")
        var cases = MintKind.allCases.map { kind in
            Case(
                name: "valid-\(kind.hyphenated)", type: kind, expect: true, defect: "none",
                description: "a valid \(String(kind.hyphenated.map { $0 == "-" ? " " : $0 })), every documented field",
                token: kind == .notification
                    ? jws(header, notification(nestedTransaction: jws(header, payload(.transaction))))
                    : jws(header, payload(kind)))
        }
        cases += [
            Case(
                name: "edge-high-s", type: .transaction, expect: true, defect: "high-s",
                description: "the signature's s above n/2: ECDSA is malleable and neither JWS nor Apple forbids it",
                token: jws(header, transaction) { TestData.highS(signed(ca.leaf.key, $0)) }),
            Case(
                name: "edge-garbage-x5c2", type: .transaction, expect: true, defect: "garbage-x5c2",
                description: "x5c[2] is not a certificate: Apple never reads it",
                token: jws(headerWith([chain[0], chain[1], "garbage"]), transaction)),
            Case(
                name: "bad-signature", type: .transaction, expect: false, defect: "bad-signature",
                description: "one bit of the signature flipped",
                token: jws(header, transaction) { flip(signed(ca.leaf.key, $0)) }),
            Case(
                name: "tampered-payload", type: .transaction, expect: false, defect: "tampered-payload",
                description: "the payload changed after signing (price)", token: tamperedToken),
            Case(
                name: "alg-none", type: .transaction, expect: false, defect: "alg-none",
                description: "alg none and no signature",
                token: Base64URL.encode(Array(headerWith(chain, alg: "none").utf8)) + "."
                    + Base64URL.encode(transaction) + "."),
            defect(
                "alg-hs256", "alg HS256 (a key-confusion attempt), signed ES256",
                headerWith(chain, alg: "HS256")),
            defect(
                "alg-es384", "alg ES384, signed ES256", headerWith(chain, alg: "ES384")),
            defect("missing-x5c", "no x5c in the header", "{\"alg\":\"ES256\"}"),
            defect("one-certificate-x5c", "x5c holds the leaf alone", headerWith([chain[0]])),
            Case(
                name: "untrusted-root", type: .transaction, expect: false, defect: "untrusted-root",
                description: "a chain of its own: leaf and intermediate under another root",
                token: jws(
                    headerWith([otherCA.leaf, otherCA.intermediate, otherCA.root].map(\.base64)), transaction,
                    key: otherCA.leaf.key)),
            Case(
                name: "intermediate-without-oid", type: .transaction, expect: false, defect: "intermediate-without-oid",
                description: "the intermediate lacks 1.2.840.113635.100.6.2.1",
                token: jws(
                    headerWith([noOIDIntermediate.leaf.base64, noOIDIntermediate.intermediate.base64, chain[2]]),
                    transaction,
                    key: noOIDIntermediate.leaf.key)),
            Case(
                name: "leaf-without-oid", type: .transaction, expect: false, defect: "leaf-without-oid",
                description: "the leaf lacks 1.2.840.113635.100.6.11.1",
                token: jws(headerWith([noOIDLeaf.base64, chain[1], chain[2]]), transaction, key: noOIDLeaf.key)),
            Case(
                name: "leaf-expired-at-signed-date", type: .transaction, expect: false, defect: "leaf-expired",
                description: "signedDate a day after the leaf's notAfter",
                token: jws(
                    header,
                    payload(.transaction) {
                        $0["signedDate"] = milliseconds(ca.leaf.spec.notAfter.addingTimeInterval(86_400))
                    })),
            Case(
                name: "leaf-not-yet-valid", type: .transaction, expect: false, defect: "leaf-not-yet-valid",
                description: "signedDate a day before the leaf's notBefore",
                token: jws(
                    header,
                    payload(.transaction) {
                        $0["signedDate"] = milliseconds(ca.leaf.spec.notBefore.addingTimeInterval(-86_400))
                    })),
            Case(
                name: "der-signature", type: .transaction, expect: false, defect: "der-signature",
                description: "the signature in DER (ECDSA-Sig-Value) instead of r‖s",
                token: jws(header, transaction) { signed(ca.leaf.key, $0, raw: false) }),
            defect(
                "crit-header", "a crit header member (exp) that Apple does not understand",
                headerWith(chain, extra: ",\"crit\":[\"exp\"],\"exp\":4102444800")),
            Case(
                name: "wrong-bundle-id", type: .transaction, expect: false, defect: "wrong-bundle-id",
                description: "bundleId \(otherBundle), not \(context.bundleID)",
                token: jws(header, payload(.transaction) { $0["bundleId"] = .string(otherBundle) })),
            Case(
                name: "wrong-environment", type: .transaction, expect: false, defect: "wrong-environment",
                description: "environment \(otherEnvironment), not \(context.environment)",
                token: jws(header, payload(.transaction) { $0["environment"] = .string(otherEnvironment) })),
        ]
        let badNested = jws(header, transaction) { flip(signed(ca.leaf.key, $0)) }
        cases.append(
            Case(
                name: "nested-bad-signature", type: .notification, expect: false, defect: "nested-bad-signature",
                description: "a valid notification whose nested transaction's signature does not verify",
                token: jws(header, notification(nestedTransaction: badNested))))
        if let failure { throw failure }
        return cases
    }

    /// One bit of a signature flipped.
    static func flip(_ signature: [UInt8]) -> [UInt8] {
        var bytes = signature
        bytes[bytes.count / 2] ^= 0x01
        return bytes
    }
}
