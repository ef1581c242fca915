/**
 * An assertive region for errors. It is always in the page (empty when there is nothing to say),
 * because screen readers announce changes to a live region, not the arrival of a new one.
 */
export function AlertRegion({ id, messages }: { id?: string; messages: readonly string[] }) {
  return (
    <div id={id} role="alert" class="alert-region">
      {messages.length === 1 && <p class="error">{messages[0]}</p>}
      {messages.length > 1 && (
        <ul class="error">
          {messages.map((message) => (
            <li key={message}>{message}</li>
          ))}
        </ul>
      )}
    </div>
  );
}
