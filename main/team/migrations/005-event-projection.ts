// What a desktop's projection takes from an event besides its columns: the payment page's address
// (an initialize answer) and the words shown next to the status (the service's status_message, a
// refusal's message). Without them a desktop applying another's event would show a different row
// than the desktop that wrote it. Both optional: a writer that has neither leaves them NULL.
export const sql = `
ALTER TABLE team.events
  ADD COLUMN payment_url text CHECK (length(payment_url) <= 2000),
  ADD COLUMN status_message text CHECK (length(status_message) <= 2000);
GRANT INSERT (payment_url, status_message) ON team.events TO support, back_office;
GRANT INSERT (payment_url, status_message) ON team.events TO receiver;
`;
