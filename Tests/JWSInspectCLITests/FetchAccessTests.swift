import Foundation
import JWSInspectCore
import TestSupport
import Testing

@testable import JWSInspectCLI

private typealias Seed = MockAppStoreServer.Seed

/// Issue 47: `fetch` decides access with the one model, on what the answer holds beside each
/// transaction (its renewal info, Apple's `status` 1 to 5), and binds the answer to the
/// question: an authentic answer about another customer never grants.
@Suite("fetch: access decided on the answer, tied to the question", .timeLimit(.minutes(10)))
struct FetchAccessTests {
    /// Customer "C"'s monthly subscription, original transaction `original`.
    static let original = "2000000000000301"

    struct StatusCase: CustomTestStringConvertible, Sendable {
        let name: String
        let status: Int?
        let purchase: Date
        let expires: Date
        var grace: Date?
        var revoked: Date?
        let state: String
        let exit: Int32
        var testDescription: String { name }
    }

    /// The mock's now is 2025-06-01.
    static let statusCases: [StatusCase] = [
        StatusCase(
            name: "status 1, in its term", status: nil, purchase: Seed.day(5, 15), expires: Seed.day(6, 15),
            state: "active", exit: 0),
        StatusCase(
            name: "status 2, expired", status: nil, purchase: Seed.day(4, 1), expires: Seed.day(5, 1),
            state: "expired", exit: 6),
        StatusCase(
            name: "status 3, billing retry without grace", status: 3, purchase: Seed.day(4, 25),
            expires: Seed.day(5, 25), state: "billing-retry", exit: 6),
        StatusCase(
            name: "status 4, billing grace period ten days ahead", status: 4, purchase: Seed.day(4, 28),
            expires: Seed.day(5, 28), grace: Seed.day(6, 11), state: "billing-grace-period", exit: 0),
        StatusCase(
            name: "status 5, refunded", status: nil, purchase: Seed.day(5, 15), expires: Seed.day(6, 15),
            revoked: Seed.day(5, 20), state: "revoked", exit: 6),
        StatusCase(
            name: "status 4 with no grace period signed: the two disagree", status: 4, purchase: Seed.day(4, 28),
            expires: Seed.day(5, 28), state: "undecided", exit: 6),
    ]

    static func subscription(_ test: StatusCase, id: String = original) -> MockTransaction {
        var transaction = MockTransaction(
            transactionId: id, originalTransactionId: id, customer: "C", productId: "com.example.pro.monthly",
            type: .autoRenewable, purchaseDate: test.purchase, expiresDate: test.expires,
            subscriptionGroupIdentifier: "21482312")
        transaction.subscriptionStatus = test.status
        transaction.gracePeriodExpiresDate = test.grace
        transaction.revocationDate = test.revoked
        return transaction
    }

    /// The record of the answer's `signedTransactionInfo`, and its access object.
    static func transactionAccess(_ stdout: String) throws -> [String: Any] {
        let record = try #require(
            FetchHarness.records(stdout).first { ($0["source"] as? String)?.hasSuffix("signedTransactionInfo") == true }
        )
        return try #require(record["access"] as? [String: Any])
    }

    @Test(arguments: statusCases)
    func subscriptionStatusesAreDecidedByTheModel(_ test: StatusCase) throws {
        let harness = try FetchHarness()
        harness.production.addTransaction(Self.subscription(test))
        let result = harness.run([
            "subscriptions", Self.original, "--require-active", "--environment", "Production", "--format", "jsonl",
        ])
        #expect(result.status == test.exit, "\(result.stdout)\(result.stderr)")
        let access = try Self.transactionAccess(result.stdout)
        #expect(access["state"] as? String == test.state, "\(access)")
        let decidedBy = access["decidedBy"] as? [String] ?? []
        #expect(decidedBy.last == "data[0].lastTransactions[0].status", "\(decidedBy)")
        if test.state == "billing-grace-period" {
            #expect(access["grants"] as? Bool == true && access["until"] as? String == "2025-06-11T00:00:00.000Z")
            #expect(decidedBy.contains("data[0].lastTransactions[0].signedRenewalInfo"))
            #expect(
                (access["detail"] as? String)?.contains("billing grace period, Apple is retrying the payment") == true)
        }
    }

    /// The first line a support desk reads says the grace period, and until when.
    @Test func theGracePeriodIsOnTheFirstLine() throws {
        let harness = try FetchHarness()
        harness.production.addTransaction(Self.subscription(Self.statusCases[3]))
        let result = harness.run(["subscriptions", Self.original, "--brief", "--environment", "Production"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("grants access until 2025-06-11 (billing grace period)"), "\(result.stdout)")
    }

    /// An authentic transaction of another customer, served for the one asked about (a caching
    /// proxy, a substituted answer): never granted, and the answer is refused (8).
    @Test func anotherCustomersTransactionIsRefused() throws {
        let harness = try FetchHarness()
        let other = try #require(harness.production.transaction(Seed.subscriptionRenewal2))
        let signed = harness.production.backend.minter.transaction(
            other, appTransactionID: nil, signedDate: InProcess.now)
        harness.production.enqueue(
            .status(
                200, headers: ["Content-Type": "application/json"], body: #"{"signedTransactionInfo":"\#(signed)"}"#),
            forPathPrefix: "/inApps/v1/transactions/")
        let asked = Seed.subscriptionRenewal1
        let result = harness.run([
            "transaction", asked, "--require-active", "--environment", "Production", "--format", "jsonl",
        ])
        #expect(result.status == 8, "\(result.stdout)\(result.stderr)")
        let access = try Self.transactionAccess(result.stdout)
        #expect(access["grants"] as? Bool == false && access["state"] as? String == "wrong-customer", "\(access)")
        #expect((access["detail"] as? String)?.hasPrefix("wrong customer: ") == true)
        #expect(result.stderr.contains("none of them tied to \(asked)"), "\(result.stderr)")
        // The transaction asked for is granted as before.
        let own = harness.run([
            "transaction", Seed.subscriptionRenewal2, "--require-active", "--environment", "Production",
        ])
        #expect(own.status == 0, "\(own.stderr)")
    }

    /// Subscription statuses asked with one customer's ID and answered with another's.
    @Test func anotherCustomersSubscriptionsAreRefused() throws {
        let harness = try FetchHarness()
        harness.production.addTransaction(Self.subscription(Self.statusCases[0]))
        let folder = harness.directory.appendingPathComponent("saved")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let own = harness.run([
            "subscriptions", Self.original, "--require-active", "--environment", "Production", "--save", folder.path,
            "-q",
        ])
        #expect(own.status == 0, "customer C's own answer grants: \(own.stderr)")
        let saved = folder.appendingPathComponent("subscriptions-\(Self.original)-Production.json")
        let body = String(decoding: try Data(contentsOf: saved), as: UTF8.self)
        harness.production.enqueue(
            .status(200, headers: ["Content-Type": "application/json"], body: body),
            forPathPrefix: "/inApps/v1/subscriptions/")
        let asked = Seed.subscriptionOriginal
        let result = harness.run([
            "subscriptions", asked, "--require-active", "--environment", "Production", "--format", "jsonl",
        ])
        #expect(result.status == 8, "\(result.stdout)\(result.stderr)")
        let access = try Self.transactionAccess(result.stdout)
        #expect(access["grants"] is NSNull && access["state"] as? String == "undecided", "\(access)")
        #expect((access["detail"] as? String)?.contains("is not tied to \(asked) by its signed IDs") == true)
        let refusal = try #require(FetchHarness.records(result.stdout).last)
        #expect(refusal["status"] as? String == "not-found", "\(refusal)")
    }
}

/// Issue 47, item 5: subscriptions and history asked by any of a customer's transaction IDs are
/// tied through Get Transaction Info's signed answer: its originalTransactionId and its
/// appTransactionId (the account's) tie the rest of the answer.
@Suite("fetch: an ID resolved with Get Transaction Info ties the answer", .timeLimit(.minutes(10)))
struct FetchResolutionTests {
    @Test func aRenewalsIDTiesItsSubscriptionAndTheAccountsOtherPurchases() throws {
        let harness = try FetchHarness()
        // Asked by a renewal's ID: the subscription's latest transaction is another one.
        let result = harness.run([
            "subscriptions", Seed.subscriptionRenewal1, "--require-active", "--environment", "Production", "--format",
            "jsonl",
        ])
        #expect(result.status == 6, "the magazine expired: \(result.stderr)")
        #expect(harness.production.requests.first?.path == "/inApps/v1/transactions/\(Seed.subscriptionRenewal1)")
        let accesses = FetchHarness.records(result.stdout).filter {
            ($0["source"] as? String)?.hasSuffix("signedTransactionInfo") == true
        }.compactMap { $0["access"] as? [String: Any] }
        #expect(accesses.map { $0["state"] as? String } == ["active", "expired"], "\(accesses)")
        // History: every purchase of the account is tied (its appTransactionId), none is "not tied".
        let history = harness.run([
            "history", Seed.subscriptionOriginal, "--environment", "Production", "--format", "jsonl",
        ])
        #expect(history.status == 0, "\(history.stderr)")
        let detail = FetchHarness.records(history.stdout).compactMap { ($0["access"] as? [String: Any])?["detail"] }
        #expect(detail.count == 7 && !detail.contains { ($0 as? String)?.contains("not tied") == true }, "\(detail)")
    }

    @Test func anIDThatDoesNotResolveTiesByItsOwnIDsAndSaysSo() throws {
        let harness = try FetchHarness()
        harness.production.enqueue(
            .status(200, headers: ["Content-Type": "application/json"], body: #"{"signedTransactionInfo":"x.y.z"}"#),
            forPathPrefix: "/inApps/v1/transactions/")
        let result = harness.run(["subscriptions", Seed.subscriptionOriginal, "--environment", "Production", "-q"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "could not be resolved with Get Transaction Info (the answer holds no signed transaction): only "
                    + "items whose own signed transactionId or originalTransactionId is \(Seed.subscriptionOriginal) "
                    + "are tied to it"), "\(result.stderr)")
    }
}
