import { describe, expect, it } from 'vitest';
import { card, keySpec } from '../../test/support/registry-fixtures.js';
import { keyRequest } from './key-request.js';

const city = { ...keySpec('city', '城市', { type: 'enum', values: ['北京', '上海', 'Beijing', 'Shanghai'] }, 'city_selector'), descriptions: { en: 'city' } };
const weather = card({ id: 'weather_agent', name: '天气', description: 'weather', requiredKeys: [city] });

describe('keyRequest', () => {
  it('asks for a declared key in the turn language: its description, widget and the enum values written in that language', () => {
    expect(keyRequest(weather, ['city'], 'en')).toEqual({
      type: 'miss',
      sub_agent_id: 'weather_agent',
      keys: ['city'],
      key_descriptions: ['city'],
      fe_widgets_suggestion: ['city_selector'],
      key_options: [['Beijing', 'Shanghai']],
    });
    expect(keyRequest(weather, ['city'], 'zh').key_options).toEqual([['北京', '上海']]);
  });

  it('names a key the card does not declare by itself, with the registry widget of that key', () => {
    const request = keyRequest(weather, ['city', 'date'], 'zh', { widgets: { date: 'date_picker' } });
    expect(request.key_descriptions).toEqual(['城市', 'date']);
    expect(request.fe_widgets_suggestion).toEqual(['city_selector', 'date_picker']);
    expect(request.key_options).toEqual([['北京', '上海'], []]);
  });

  it('without a language gives the default description and every option; `invalid` when the values were refused', () => {
    const request = keyRequest(weather, ['city'], undefined, { type: 'invalid' });
    expect(request.type).toBe('invalid');
    expect(request.key_descriptions).toEqual(['城市']);
    expect(request.key_options).toEqual([['北京', '上海', 'Beijing', 'Shanghai']]);
  });
});
