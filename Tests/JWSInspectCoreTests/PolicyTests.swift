import AppStoreTestData
import Foundation
import TestPKI
import Testing

@testable import JWSInspectCore

/// The checks as policies: one type per check, chosen in one place, and the payload members
/// decoded for speed being exactly what the chosen policies declare.
@Suite struct PolicyTests {
    static let account = UUID(uuidString: "7E3FB20B-4CDB-47CC-936D-99D65F608138")!
    static let device = UUID(uuidString: "2C9A1F6E-0B8D-4E3A-9C57-6F1E2D3C4B5A")!

    /// One option set per policy that an option turns on, then all of them together.
    static let optionSets: [(String, @Sendable (inout VerificationOptions) -> Void)] = [
        ("defaults", { _ in }),
        ("no-verify", { $0.verifySignatures = false }),
        ("bundle-id", { $0.expectedBundleId = TestPayloads.bundleId }),
        ("app-apple-id", { $0.expectedAppAppleId = TestPayloads.appAppleId }),
        ("environment", { $0.expectedEnvironment = .sandbox }),
        ("account-token", { $0.expectedAccountToken = account }),
        ("device-verification", { $0.deviceVerificationID = device }),
        ("active", { $0.requireActive = true }),
        (
            "all",
            {
                $0.expectedBundleId = TestPayloads.bundleId
                $0.expectedAppAppleId = TestPayloads.appAppleId
                $0.expectedEnvironment = .production
                $0.expectedAccountToken = account
                $0.deviceVerificationID = device
                $0.requireActive = true
            }
        ),
    ]

    /// Tokens carrying every member some policy reads, of every kind, nested or not.
    static func tokens() -> [String] {
        let pki = Fixtures.pki
        let nonce = "0b6d8c4e-2a1f-4e3b-9d5c-7a8b9c0d1e2f"
        let verification = DeviceVerification.expected(nonce: nonce, deviceID: device)
        let extra =
            #","appAccountToken":"7e3fb20b-4cdb-47cc-936d-99d65f608138","deviceVerificationNonce":"\#(nonce)","#
            + #""deviceVerification":"\#(verification)","revocationDate":1735700000000,"revocationReason":1}"#
        let transaction = String(TestPayloads.transaction().dropLast()) + extra
        let nested = pki.sign(payloadJSON: transaction)
        let notification =
            #"{"notificationType":"DID_RENEW","signedDate":1735689600000,"data":{"bundleId":"b","appAppleId":1,"#
            + #""environment":"Sandbox","signedTransactionInfo":"\#(nested)"}}"#
        return [
            nested,
            pki.sign(payloadJSON: TestPayloads.transaction()),
            pki.sign(payloadJSON: TestPayloads.renewalInfo()),
            pki.sign(payloadJSON: TestPayloads.appTransaction()),
            pki.sign(payloadJSON: TestPayloads.notification()),
            pki.sign(payloadJSON: notification),
            XcodeTokenTests.token(),
        ]
    }

    @Test func everyCheckNameHasItsOwnPolicyDeclaringItsStatus() {
        let statuses: [String: Status] = [
            "alg": .invalidSignature, "crit": .invalidSignature, "signature": .invalidSignature,
            "x5c": .invalidChain, "chain": .invalidChain, "chain-path": .invalidChain, "leaf-oid": .invalidChain,
            "intermediate-oid": .invalidChain, "bundle-id": .wrongApp, "app-apple-id": .wrongApp,
            "account-token": .wrongApp, "device-verification": .wrongApp, "environment": .wrongEnvironment,
            "active": .inactive, "key": .invalidChain, "aud": .invalidClaims, "iss": .invalidClaims,
            "bid": .invalidClaims,
            "iat": .invalidClaims, "exp": .invalidClaims, "nonce": .invalidClaims, "claims": .invalidClaims,
            "revocation": .invalidChain,
        ]
        let names = Policies.all.map { $0.name.rawValue }
        #expect(names.count == Set(names).count, "one policy per name: \(names)")
        #expect(Set(names) == Set(statuses.keys))
        for policy in Policies.all {
            #expect(policy.failureStatus == statuses[policy.name.rawValue], "\(policy.name)")
        }
        // The public spellings are the policies' own names.
        let spelled: [Check.Name] = [
            .alg, .crit, .x5c, .chain, .chainPath, .leafOID, .intermediateOID, .signature, .bundleId, .appAppleId,
            .environment, .accountToken, .deviceVerification, .active, .key, .aud, .iss, .bid, .iat, .exp, .nonce,
            .claims, .revocation,
        ]
        #expect(Set(spelled.map(\.rawValue)) == Set(names))
        for name in spelled { #expect(name.failureStatus == statuses[name.rawValue], "\(name)") }
    }

    /// A step records only the checks of the policies it declares, so the builder's list is
    /// the whole truth about what can be recorded (and what statuses a token can get).
    @Test func everyRecordedCheckBelongsToAChosenPolicy() {
        let pki = Fixtures.pki
        let token = pki.sign(payloadJSON: TestPayloads.transaction())
        let other = pki.sign(payloadJSON: TestPayloads.renewalInfo())
        let bad = String(token[..<token.lastIndex(of: ".")!] + other[other.lastIndex(of: ".")!...])
        let failing = [
            bad, pki.sign(payloadJSON: TestPayloads.transaction(), alg: "HS256"), "eyJhbGciOiJub25lIn0.e30.",
        ]
        for (label, configure) in Self.optionSets {
            for options in [Fixtures.options(configure), XcodeTokenTests.trustingXcode(configure)] {
                let chosen = Set(Policies.make(options).chosen.map { $0.name })
                let verifier = Verifier(options: options)
                for token in Self.tokens() + failing {
                    let result = verifier.inspect(token, source: "t")
                    for check in result.checks + result.nested.flatMap(\.inspection.checks) {
                        #expect(chosen.contains(check.name), "\(label): \(check.name) recorded, not chosen")
                    }
                }
            }
        }
    }

    @Test func everyDeclaredMemberIsDecoded() {
        for (label, configure) in Self.optionSets {
            let options = Fixtures.options(configure)
            let decoded = Set(PayloadKeys(for: options).selection.values)
            for policy in Policies.make(options).chosen {
                for member in policy.payloadMembers {
                    #expect(decoded.contains(member), "\(label): \(policy.name) reads \(member)")
                }
            }
        }
        let all = Set(PayloadKeys.all.selection.values)
        for policy in Policies.all {
            for member in policy.payloadMembers { #expect(all.contains(member), "\(policy.name): \(member)") }
        }
    }

    @Test func theDecodedMembersAreTheChosenPoliciesOnly() {
        #expect(PayloadKeys(for: Fixtures.options()).selection.plan.values == ["signedDate", "receiptCreationDate"])
        let all = Fixtures.options(Self.optionSets.last!.1)
        #expect(
            PayloadKeys(for: all).selection.plan.values == [
                "signedDate", "receiptCreationDate", "bundleId", "appAppleId", "environment", "receiptType",
                "appAccountToken", "deviceVerification", "deviceVerificationNonce", "revocationDate",
                "revocationReason", "revocationType", "isUpgraded", "type", "expiresDate", "purchaseDate",
                "transactionId", "originalTransactionId", "inAppOwnershipType", "gracePeriodExpiresDate",
                "isInBillingRetryPeriod", "notificationType", "subtype", "appTransactionId", "advancedCommerceInfo",
                "data",
            ])
        #expect(Policies.make(Fixtures.options { $0.verifySignatures = false }).steps.isEmpty)
    }

    /// A policy that read a member it did not declare would see it missing from the selected
    /// payload, and decide differently than on the fully decoded one.
    @Test func noPolicyReadsAMemberItDidNotDeclare() throws {
        // Every member of every test payload, found by decoding them whole, not from any declaration.
        var members = Set<String>()
        for token in Self.tokens() { members.formUnion(try CompactJWS(token).payload.object.keys) }
        let full = PayloadKeys(values: members.sorted())
        for (label, configure) in Self.optionSets {
            for roots in [Fixtures.options(configure), XcodeTokenTests.trustingXcode(configure)] {
                let selected = Verifier(
                    options: roots, cache: VerificationCache(), payloadKeys: PayloadKeys(for: roots))
                let everything = Verifier(options: roots, cache: VerificationCache(), payloadKeys: full)
                for token in Self.tokens() {
                    let lhs = selected.inspect(token, source: "t")
                    let rhs = everything.inspect(token, source: "t")
                    #expect(lhs.checks == rhs.checks, "\(label)")
                    #expect(lhs.notes == rhs.notes, "\(label)")
                    #expect(lhs.status == rhs.status && lhs.reason == rhs.reason, "\(label)")
                    #expect(lhs.kind == rhs.kind, "\(label)")
                }
            }
        }
    }

    @Test("a valid verdict says expectations met exactly when an expectation was compared")
    func expectationsMetInTheVerdict() {
        let token = Fixtures.pki.sign(payloadJSON: AccessFailsClosedTests.transaction())
        let plain = Verifier(options: Fixtures.options()).inspect(token, source: "t")
        #expect(plain.status == .valid && !plain.reason.contains("expectations met"), "\(plain.reason)")
        let asked: [@Sendable (inout VerificationOptions) -> Void] = [
            { $0.expectedBundleId = TestPayloads.bundleId }, { $0.expectedEnvironment = .sandbox },
        ]
        for configure in asked {
            let result = Verifier(options: Fixtures.options(configure)).inspect(token, source: "t")
            #expect(result.status == .valid && result.reason.contains(", expectations met"), "\(result.reason)")
        }
        // Asked for, but only noted (renewal info carries no bundle ID): nothing was compared, as
        // on a receipt asked only for an app Apple ID (`ReceiptExpectationTests`).
        let renewal = Fixtures.pki.sign(payloadJSON: TestPayloads.renewalInfo())
        let noted = Verifier(options: Fixtures.options { $0.expectedBundleId = TestPayloads.bundleId })
            .inspect(renewal, source: "t")
        #expect(noted.status == .valid && !noted.reason.contains("expectations met"), "\(noted.reason)")
        #expect(noted.checks.allSatisfy { $0.name != .bundleId } && noted.notes.contains { $0.hasPrefix("bundle ID") })
        // Every option that asks for an expectation chooses one, for every envelope.
        for (name, configure) in Self.optionSets {
            let expected = !["defaults", "no-verify"].contains(name)
            let options = Fixtures.options { configure(&$0) }
            #expect(Policies.make(options).expectations.isEmpty == !expected, "\(name)")
        }
    }

    /// `Policies.all` is the builder's own list: what it chooses when every option asks for a check.
    @Test func everyPolicyIsWhatTheBuilderChoosesWithEveryOption() {
        var options = Fixtures.options(Self.optionSets.last!.1)
        options.revocation = NoRequester()
        #expect(Policies.make(options).chosen.map { $0.name } == Policies.all.map { $0.name })
    }

    private struct NoRequester: RevocationRequester {
        func status(of certificate: Certificate, issuedBy issuer: Certificate, now: Date) -> RevocationAnswer {
            .unavailable(why: "no requester")
        }
    }
}

/// Where the signing key comes from: one value per trust model.
@Suite struct TrustModelTests {
    static func selection(_ token: String, _ options: VerificationOptions) -> TrustDecision {
        let jws = try! CompactJWS(token)
        let chain = ParsedChain(header: jws.header.object, trustStore: options.trustStore, cache: VerificationCache())
        return TrustModel.select(
            jws: jws, chain: chain, options: options, claims: chain.developerKeyID == nil ? [:] : jws.payload.object)
    }

    @Test func anAppStoreChainSelectsTheChainModel() throws {
        let selection = Self.selection(Fixtures.pki.sign(payloadJSON: TestPayloads.transaction()), Fixtures.options())
        let model = try #require(selection.model)
        guard case .appStoreChain = model else {
            Issue.record("\(model)")
            return
        }
        #expect(model.allowedAlgorithms == ["ES256"])
        #expect(model.validationChecks.map { $0.name } == [.chain, .chainPath, .leafOID, .intermediateOID])
        #expect(selection.x5c?.passed == true && !selection.isXcode)
        #expect(model.verdict(PlainHints()) == "signature and certificate chain verified")
    }

    @Test func xcodesPinnedCertificateSelectsThePinnedModel() throws {
        let selection = Self.selection(XcodeTokenTests.token(), XcodeTokenTests.trustingXcode())
        let model = try #require(selection.model)
        guard case .pinnedCertificate(_, isXcode: true) = model else {
            Issue.record("\(model)")
            return
        }
        #expect(model.allowedAlgorithms == ["ES256"])
        #expect(model.validationChecks.map { $0.name } == [.chain])
        #expect(model.verdict(PlainHints()).hasPrefix("StoreKit Testing in Xcode token"))
    }

    @Test func anUntrustedXcodeTokenSelectsNoModel() {
        let selection = Self.selection(XcodeTokenTests.token(), Fixtures.options())
        #expect(selection.model == nil && selection.isXcode && selection.x5c?.passed == false)
    }

    @Test func aValidTokenRecordsOnlyTheChecksItsModelDecides() {
        let cases = [
            (Fixtures.pki.sign(payloadJSON: TestPayloads.transaction()), Fixtures.options()),
            (XcodeTokenTests.token(), XcodeTokenTests.trustingXcode()),
        ]
        for (token, options) in cases {
            let model = Self.selection(token, options).model
            let result = Verifier(options: options).inspect(token, source: "t")
            #expect(result.status == .valid, "\(result.reason)")
            let allowed = [.alg, .x5c, .signature] + (model?.validationChecks.map { $0.name } ?? [])
            #expect(result.checks.allSatisfy { allowed.contains($0.name) })
            #expect(Set(result.checks.map(\.name)) == Set(allowed))
        }
    }
}

/// Details are values until read: a batch that never shows a check never formats its sentence.
@Suite struct CheckDetailTests {
    final class Counter: @unchecked Sendable {
        var reads = 0
    }

    struct Counting: CheckDetail {
        let counter: Counter

        var text: String {
            counter.reads += 1
            return "read \(counter.reads)"
        }
    }

    @Test func aDetailIsPutIntoWordsOnlyWhenRead() {
        let counter = Counter()
        let check = Check(.bundleId, passed: false, Counting(counter: counter))
        let copies = [check, check]
        #expect(counter.reads == 0)
        #expect(check.failed && copies.count == 2)
        #expect(check.detail == "read 1")
        #expect(counter.reads == 1)
    }

    @Test func aFailingExpectationKeepsItsValuesAndReadsAsBefore() {
        let token = Fixtures.pki.sign(payloadJSON: TestPayloads.transaction())
        let result = Verifier(options: Fixtures.options { $0.expectedBundleId = "com.example.other" })
            .inspect(token, source: "t")
        #expect(result.status == .wrongApp)
        #expect(
            result.check(.bundleId)?.detail
                == "bundleId is \"\(TestPayloads.bundleId)\", expected \"com.example.other\"")
    }
}
