import AppStoreTestData
import Foundation
import TestPKI
import Testing

@testable import JWSInspectCLI
@testable import JWSInspectCore

/// The table's first line shows support staff both whether the token is authentic and whether
/// it grants access, so a valid token for an expired purchase never reads as "the purchase is
/// good". Rendered in process, through `TableRenderer` and `JSONRenderer` directly.
@Suite struct VerdictHeadlineTests {
    static let pki = ExecutableTests.pki
    /// 2025-12-01: after the SUBSCRIBED sample's transaction expired, inside the test leaf's validity.
    static let now = Date(timeIntervalSince1970: 1_764_547_200)

    static func sample(_ name: String) throws -> String {
        let url = CLI.packageRoot.appendingPathComponent("Samples/\(name)")
        return try String(contentsOf: url, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Inspects with Apple's embedded roots (or the test root), at a fixed now.
    static func inspect(
        _ token: String, testRoot: Bool = false, _ configure: (inout VerificationOptions) -> Void = { _ in }
    ) throws -> Inspection {
        var options = VerificationOptions()
        if testRoot { options.trustStore = TrustStore(roots: [try Certificate(derBytes: pki.root.der)]) }
        options.now = now
        configure(&options)
        return Verifier(options: options).inspect(token, source: "in")
    }

    static func headline(_ inspection: Inspection, color: Bool = false) -> String {
        String(TableRenderer(color: color).render(inspection).prefix { $0 != "\n" })
    }

    static let subscribed = "notification-subscribed-sandbox-2025.jws"

    @Test func aValidNotificationWhoseTransactionExpiredSaysSo() throws {
        let result = try Self.inspect(try Self.sample(Self.subscribed))
        #expect(result.status == .valid)
        #expect(
            Self.headline(result)
                == "VALID — authentic Apple-signed notification · Sandbox (test environment: no money charged) · transaction grants no access (expired 2025-10-02)  in"
        )
        let lines = TableRenderer(color: false).render(result).split(separator: "\n").map(String.init)
        #expect(
            lines.contains(
                "    VALID — authentic Apple-signed transaction · Sandbox (test environment: no money charged) · grants no access (expired 2025-10-02)"
                    + "  in › data.signedTransactionInfo"))
        #expect(
            lines.contains(
                "    VALID — authentic Apple-signed renewal info · Sandbox (test environment: no money charged)"
                    + " · not an entitlement (renewal info alone)"
                    + "  in › data.signedRenewalInfo"))
        #expect(!lines.contains { $0.contains("subscription active") })
    }

    @Test func requireActiveKeepsAuthenticityInTheHeadline() throws {
        let result = try Self.inspect(try Self.sample(Self.subscribed)) { $0.requireActive = true }
        #expect(result.status == .inactive)
        #expect(
            Self.headline(result)
                == "INVALID (inactive) — authentic Apple-signed notification · Sandbox (test environment: no money charged) · transaction grants no access "
                + "(expired 2025-10-02)  in")
    }

    @Test func theTransactionSample() throws {
        let token = try Self.sample("transaction-sandbox-2022.jws")
        #expect(
            Self.headline(try Self.inspect(token))
                == "VALID — authentic Apple-signed transaction · Sandbox (test environment: no money charged) · grants no access (expired 2022-10-24)  in"
        )
        #expect(
            Self.headline(try Self.inspect(token) { $0.requireActive = true })
                == "INVALID (inactive) — authentic Apple-signed transaction · Sandbox (test environment: no money charged) · grants no access (expired 2022-10-24)  in"
        )
    }

    @Test func aNotificationWithoutATransactionDecidesNoAccess() throws {
        let result = try Self.inspect(try Self.sample("notification-test-sandbox-2025.jws"))
        #expect(
            Self.headline(result)
                == "VALID — authentic Apple-signed notification · Sandbox (test environment: no money charged) · not an entitlement (no transaction in it)  in"
        )
    }

    @Test func grantedAccessAndAChainOfOnesOwn() throws {
        let token = Self.pki.sign(payloadJSON: TestPayloads.transaction())  // expires 2025-01-31
        let at = Date(timeIntervalSince1970: 1_736_899_200)  // 2025-01-15
        let result = try Self.inspect(token, testRoot: true) {
            $0.timePolicy = .fixed(at)
            $0.accessAt = at
        }
        #expect(result.status == .valid)
        #expect(
            Self.headline(result)
                == "VALID — authentic transaction (trusted root, not a known Apple chain) · Sandbox (test environment: no money charged) · grants access until 2025-01-31  in"
        )
    }

    @Test func otherFailuresShowAuthenticityButNoAccess() throws {
        let token = Self.pki.sign(payloadJSON: TestPayloads.transaction())
        let production = try Self.inspect(token, testRoot: true) { $0.expectedEnvironment = .production }
        #expect(production.status == .wrongEnvironment)
        #expect(
            Self.headline(production)
                == "INVALID (wrong-environment) — authentic transaction (trusted root, not a known Apple chain)  in")
        let forged = try Self.inspect(token)  // the test PKI under Apple's roots
        #expect(forged.status == .invalidChain)
        #expect(Self.headline(forged) == "INVALID (invalid-chain) — transaction NOT proven authentic  in")
    }

    /// The headline names what differs when the status alone would mislead: the customer or
    /// the device (not the app), a missing key (not a chain); JSON keeps the status.
    @Test func theHeadlineNamesWhatDiffers() throws {
        let token = Self.pki.sign(payloadJSON: TestPayloads.transaction())
        let other = UUID(uuidString: "00000000-0000-4000-8000-000000000001")!
        let customer = try Self.inspect(token, testRoot: true) { $0.expectedAccountToken = other }
        #expect(customer.status == .wrongApp)
        #expect(Self.headline(customer).hasPrefix("INVALID (wrong customer: another account token) — authentic "))
        let device = try Self.inspect(token, testRoot: true) { $0.deviceVerificationID = other }
        #expect(device.status == .wrongApp)
        #expect(Self.headline(device).hasPrefix("INVALID (wrong device) — authentic "))
        let app = try Self.inspect(token, testRoot: true) { $0.expectedBundleId = "com.other" }
        #expect(Self.headline(app).hasPrefix("INVALID (wrong-app) — "))
        let keys = try SignCommandTests.Keys()
        let developer = try Self.inspect(try InspectKeyTests.apiToken(keys))
        #expect(developer.status == .invalidChain)
        #expect(Self.headline(developer).hasPrefix("INVALID (no trusted key) — "), "\(Self.headline(developer))")
    }

    /// Sandbox is said on line 1 of what is proven authentic, and Production is not.
    @Test func sandboxIsSaidOnTheFirstLine() throws {
        let sandbox = Self.pki.sign(payloadJSON: TestPayloads.transaction())
        #expect(Self.headline(try Self.inspect(sandbox, testRoot: true)).contains(" · Sandbox (test environment: "))
        let production = Self.pki.sign(
            payloadJSON: TestPayloads.transaction().replacingOccurrences(of: "\"Sandbox\"", with: "\"Production\""))
        let line = Self.headline(try Self.inspect(production, testRoot: true))
        #expect(line.hasPrefix("VALID — ") && !line.contains("Sandbox"), "\(line)")
        #expect(!Self.headline(try Self.inspect(sandbox)).contains("Sandbox"), "not proven authentic: not said")
    }

    @Test func noVerifyNeverClaimsAuthenticity() throws {
        let token = Self.pki.sign(payloadJSON: TestPayloads.transaction())
        let unverified = try Self.inspect(token) { $0.verifySignatures = false }
        #expect(Self.headline(unverified) == "UNVERIFIED — NOTHING WAS CHECKED (--no-verify)  transaction  in")
        let inactive = try Self.inspect(token) {
            $0.verifySignatures = false
            $0.requireActive = true
        }
        #expect(
            Self.headline(inactive)
                == "INVALID (inactive) — transaction, signature and chain NOT checked (--no-verify) · no access decision "
                + "(not verified; if authentic: no access, expired 2025-01-31)  in")
        #expect(Self.headline(.malformed(source: "in", reason: "x")) == "INVALID (malformed)  in")
    }

    @Test func xcodeTokensAreNeverAuthenticAppStoreData() throws {
        let certificate = TestPKI.issue(
            CertificateSpec(
                commonName: "StoreKit Testing in Xcode", notBefore: Date(timeIntervalSince1970: 1_697_000_000),
                notAfter: Date(timeIntervalSince1970: 1_728_536_000), isCA: false, keyIdentifiers: false),
            issuer: nil)
        let payload = #"{"transactionId":"0","productId":"pro","expiresDate":1697679936054,"signedDate":1697679936054}"#
        let header = #"{"alg":"ES256","kid":"Apple_Xcode_Key","typ":"JWT","x5c":["\#(certificate.base64)"]}"#
        let token = TestPKI.compactJWS(headerJSON: header, payloadJSON: payload, key: certificate.key)
        var options = VerificationOptions(trustStore: TrustStore(roots: [try Certificate(derBytes: certificate.der)]))
        options.now = Self.now
        let result = Verifier(options: options).inspect(token, source: "in")
        #expect(result.status == .valid, "\(result.reason)")
        #expect(result.isXcode)
        #expect(
            Self.headline(result) == "VALID — StoreKit Testing in Xcode transaction, NOT signed by the App Store  in")
    }

    @Test func coloursFollowTheVerdict() throws {
        let line = Self.headline(try Self.inspect(try Self.sample(Self.subscribed)), color: true)
        #expect(
            line.hasPrefix(
                "\u{1b}[32;1mVALID\u{1b}[0m — authentic Apple-signed notification · \u{1b}[33;1mSandbox (test environment: "
                    + "no money charged)\u{1b}[0m · transaction "))
        #expect(line.contains("\u{1b}[33;1mgrants no access (expired 2025-10-02)\u{1b}[0m"))
        let inactive = Self.headline(
            try Self.inspect(try Self.sample(Self.subscribed)) { $0.requireActive = true }, color: true)
        #expect(inactive.contains("\u{1b}[31;1mgrants no access (expired 2025-10-02)\u{1b}[0m"))
    }

    @Test func jsonCarriesTheAccessDecision() throws {
        let result = try Self.inspect(try Self.sample(Self.subscribed))
        let text = JSONRenderer.render(result, pretty: false, fragments: ChainFragments())
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let access = try #require(object["access"] as? [String: Any])
        #expect(access["grants"] as? Bool == false)
        #expect(access["detail"] as? String == "grants no access: expired 2025-10-02T07:09:07.000Z")
        #expect(access["time"] as? String == "2025-12-01T00:00:00.000Z")
        #expect(access["decidedBy"] as? [String] == ["data.signedTransactionInfo", "data.status"])
        #expect(access["state"] as? String == "expired" && access["until"] is NSNull)
        #expect(
            (object["summary"] as? String)?.hasSuffix(
                "its transaction grants no access: expired 2025-10-02T07:09:07.000Z.") == true)
        let renewal = try #require((object["nested"] as? [String: Any])?["data.signedRenewalInfo"] as? [String: Any])
        #expect((renewal["access"] as? [String: Any])?["grants"] as? Bool == false)
        #expect((renewal["access"] as? [String: Any])?["state"] as? String == "not-an-entitlement")
    }
}
