import Foundation
import Testing

@testable import JWSInspectCore

/// The real Apple-signed sandbox tokens in Samples/, against the embedded Apple roots.
@Suite struct RealSampleTests {
    static let samples = [
        "transaction-sandbox-2022.jws", "notification-test-sandbox-2025.jws",
        "notification-subscribed-sandbox-2025.jws",
    ]
    /// A fixed "now" after the 2022 sample's leaf expired (2023-09-24).
    static let now = Date(timeIntervalSince1970: 1_764_547_200)  // 2025-12-01

    func verifier(_ configure: (inout VerificationOptions) -> Void = { _ in }) -> Verifier {
        var options = VerificationOptions()
        options.now = Self.now
        configure(&options)
        return Verifier(options: options)
    }

    @Test(arguments: samples)
    func verifiesAgainstEmbeddedRoots(_ name: String) throws {
        let result = verifier().inspect(try Fixtures.sample(name), source: name)
        #expect(result.status == .valid, "\(result.reason)")
        #expect(result.checks.map(\.name) == [.alg, .x5c, .chain, .chainPath, .leafOID, .intermediateOID, .signature])
        #expect(result.checks.allSatisfy { $0.passed })
        #expect(result.checkTime?.basis.description == "signedDate")
        #expect(result.chain.map(\.knownAs).allSatisfy { $0 != nil })
    }

    /// Without a report of validity now (`--quiet`), the chain is not validated now: the same
    /// verdict and checks, no `validNow`.
    @Test(arguments: samples)
    func validityNowIsOnlyComputedWhenReported(_ name: String) throws {
        let reported = verifier().inspect(try Fixtures.sample(name), source: name)
        let quiet = verifier { $0.reportsValidityNow = false }.inspect(try Fixtures.sample(name), source: name)
        #expect(reported.validNow != nil)
        #expect(quiet.validNow == nil)
        #expect(quiet.status == reported.status && quiet.reason == reported.reason)
        #expect(quiet.checks.map(\.name) == reported.checks.map(\.name))
    }

    @Test func kindsAreRecognised() throws {
        #expect(verifier().inspect(try Fixtures.sample(Self.samples[0]), source: "").kind == .transaction)
        #expect(verifier().inspect(try Fixtures.sample(Self.samples[1]), source: "").kind == .notification)
    }

    @Test func transactionFailsNowButPassesAtSignedDate() throws {
        let token = try Fixtures.sample("transaction-sandbox-2022.jws")
        let atSigning = verifier().inspect(token, source: "")
        #expect(atSigning.status == .valid)
        #expect(atSigning.checkTime?.date == Date(timeIntervalSince1970: 1_667_559_685.499))
        let reportNow = try #require(atSigning.validNow)
        #expect(!reportNow.valid)
        #expect(reportNow.detail.contains("expired"))

        let now = verifier { $0.timePolicy = .now }.inspect(token, source: "")
        #expect(now.status == .invalidChain)
        #expect(now.failedCheck == .chain)
        #expect(now.check(.chain)?.detail.contains("certificate has expired") == true)
        #expect(now.check(.chain)?.detail.contains("2023-09-24T02:50:33") == true)
    }

    /// A valid token's reason and chain detail name the check time; they are rendered only
    /// when read, so their exact words are pinned here.
    @Test func validVerdictNamesTheCheckTime() throws {
        let result = verifier().inspect(try Fixtures.sample("transaction-sandbox-2022.jws"), source: "")
        #expect(
            result.reason
                == "signature and certificate chain verified (certificates checked at signedDate 2022-11-04T11:01:25.499Z)"
        )
        #expect(
            result.check(.chain)?.detail
                == "leaf -> intermediate -> trusted root \"Apple Root CA - G3\", valid at signedDate 2022-11-04T11:01:25.499Z"
        )
        #expect(result.check(.chain) == Check(.chain, passed: true, result.check(.chain)?.detail ?? ""))
    }

    @Test func appleExpectationsAreCompared() throws {
        let token = try Fixtures.sample("notification-subscribed-sandbox-2025.jws")
        let good = verifier {
            $0.expectedBundleId = "com.loki-project.loki-messenger"
            $0.expectedAppAppleId = 1_470_168_868
            $0.expectedEnvironment = .sandbox
        }.inspect(token, source: "")
        #expect(good.status == .valid, "\(good.reason)")
        let production = verifier { $0.expectedEnvironment = .production }.inspect(token, source: "")
        #expect(production.status == .wrongEnvironment)
        #expect(production.reason == "environment: data.environment is Sandbox, expected Production")
    }

    @Test func applesRootsDoNotTrustTestPKIAndViceVersa() throws {
        let token = try Fixtures.sample("transaction-sandbox-2022.jws")
        let result = Verifier(options: Fixtures.options()).inspect(token, source: "")
        #expect(result.status == .invalidChain)
        #expect(result.check(.chain)?.detail.contains("not among the trusted roots") == true)
    }
}
