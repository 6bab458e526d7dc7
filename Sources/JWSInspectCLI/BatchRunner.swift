internal import Dispatch
internal import JWSInspectCore
internal import Synchronization

/// Verifies items in batches on `jobs` threads and hands the rendered results back
/// in input order, so output order never depends on scheduling.
final class BatchRunner: Sendable {
    /// One item's outcome, rendered on the worker that verified it.
    struct Outcome: Sendable {
        let status: Status
        /// What goes to stdout (nil with --quiet, or for a malformed item in table mode).
        let output: String?
        /// A one-line error for stderr (malformed items).
        let error: String?
    }

    let verifier: Verifier
    let jobs: Int
    let render: @Sendable (Inspection) -> Outcome

    /// Items gathered before a batch is verified: enough to keep every core busy,
    /// few enough that memory stays small.
    static let batchSize = 2048

    init(verifier: Verifier, jobs: Int, render: @escaping @Sendable (Inspection) -> Outcome) {
        self.verifier = verifier
        self.jobs = jobs
        self.render = render
    }

    /// Verifies and renders `items`, returning outcomes in the same order.
    func run(_ items: [InputScanner.Item]) -> [Outcome] {
        guard !items.isEmpty else { return [] }
        let slots = Slots(count: items.count)
        defer { slots.buffer.deallocate() }
        let next = Atomic<Int>(0)
        let workers = min(jobs, items.count)
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            // Workers take the next unclaimed item, so a slow token never idles the others.
            while true {
                let index = next.add(1, ordering: .relaxed).oldValue
                guard index < items.count else { return }
                slots.buffer[index] = outcome(items[index])
            }
        }
        return slots.buffer.map { $0! }
    }

    /// One result slot per item; each is written by exactly one worker and read only after
    /// `concurrentPerform` returns, which is why sharing the buffer is safe.
    private struct Slots: @unchecked Sendable {
        let buffer: UnsafeMutableBufferPointer<Outcome?>

        init(count: Int) {
            buffer = .allocate(capacity: count)
            buffer.initialize(repeating: nil)
        }
    }

    private func outcome(_ item: InputScanner.Item) -> Outcome {
        switch item {
        case .token(let source, let token):
            return render(verifier.inspect(token, source: source))
        case .malformed(let source, let reason):
            return render(.malformed(source: source, reason: reason))
        }
    }
}
